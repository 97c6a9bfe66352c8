"""LlamaIndex: ``CleaveNodeParser``, a ``NodeParser`` that makes cleave chunks into ``TextNode``s.

Each node has ``start_char_idx`` and ``end_char_idx`` (exact character offsets in its
document's text, from cleave's records rather than a text search), a SOURCE relationship to
the document, and ``line_start``, ``line_end``, ``scope``, ``symbols``, ``language`` and
``chunk_id`` in its metadata.

Needs ``llama-index-core`` (``pip install llama-index-core``); ``import cleave`` alone never
imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.node_parser.interface import NodeParser
    from llama_index.core.schema import BaseNode, Document, NodeRelationship, TextNode
    from llama_index.core.utils import get_tqdm_iterable
    from pydantic import Field, PrivateAttr
except ImportError as err:  # pragma: no cover - exercised only without the package
    raise ImportError(
        "cleave.llama_index needs llama-index-core: pip install llama-index-core"
    ) from err

from cleave import Chunker

# Metadata that locates a chunk but says nothing about its content: left out of what is
# embedded and what the model reads.
_LOCATING = ["chunk_id", "line_start", "line_end"]


class CleaveNodeParser(NodeParser):
    """Parses documents into cleave chunks: whole functions, classes and sections within
    ``budget`` (counted in ``unit``, header included).

    A document's ``metadata["file_path"]`` (as ``SimpleDirectoryReader`` sets it) or
    ``metadata["file_name"]`` names its chunks and picks the language by extension;
    ``language`` picks it by name. ``include_header`` puts the context header in each node's
    text (what a model should read); the offsets always index the document's text.
    """

    budget: int = Field(default=2000, description="Most units a chunk may have, header included.")
    unit: str = Field(default="chars", description="chars, tokens, bytes or estimate.")
    tokenizer: str = Field(default="o200k", description="o200k or cl100k, for unit='tokens'.")
    overlap: int = Field(default=0, description="Units repeated from the previous chunk.")
    headers: bool = Field(default=True, description="Whether chunks get context headers.")
    include_header: bool = Field(default=True, description="Whether node text starts with the header.")
    language: str | None = Field(default=None, description="A language name for every document.")

    _chunker: Chunker = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._chunker = Chunker(
            budget=self.budget,
            unit=self.unit,
            tokenizer=self.tokenizer,
            overlap=self.overlap,
            headers=self.headers,
        )

    @classmethod
    def class_name(cls) -> str:
        return "CleaveNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Chunking with cleave"):
            text = node.get_content()
            path = node.metadata.get("file_path") or node.metadata.get("file_name")
            path = path if isinstance(path, str) and path else None
            chunks = self._chunker.chunk_text(text, path=path, language=self.language)
            for i, chunk in enumerate(chunks):
                child = TextNode(
                    id_=self.id_func(i, node),
                    text=chunk.rendered if self.include_header else chunk.text,
                    start_char_idx=chunk.char_start,
                    end_char_idx=chunk.char_end,
                    # The document's own metadata is merged in by the base class's
                    # post-processing when `include_metadata` is set.
                    metadata={
                        "chunk_id": chunk.id,
                        "language": chunk.language,
                        "line_start": chunk.line_start,
                        "line_end": chunk.line_end,
                        "scope": chunk.scope,
                        "symbols": chunk.symbols,
                    },
                    excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, *_LOCATING],
                    excluded_llm_metadata_keys=[*node.excluded_llm_metadata_keys, *_LOCATING],
                    metadata_seperator=node.metadata_separator,
                    metadata_template=node.metadata_template,
                    text_template=node.text_template,
                    relationships={NodeRelationship.SOURCE: node.as_related_node_info()},
                )
                out.append(child)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        # The base class re-derives the offsets by searching the document for each node's
        # text, which misses when the text starts with a header: the records' offsets stand.
        offsets = [(n.start_char_idx, n.end_char_idx) for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, (start, end) in zip(nodes, offsets, strict=True):
            if isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = start, end
        return nodes
