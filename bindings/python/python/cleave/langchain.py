"""LangChain: ``CleaveTextSplitter``, a ``TextSplitter`` whose documents know where they come from.

The base class finds a chunk's ``start_index`` by searching the text for the chunk, which
breaks once a chunk carries a context header (the header is not in the text) and can land on
an earlier copy of a repeated passage. This splitter takes the offsets from cleave's records
instead: ``start_index`` is the chunk's exact character offset in the document's text.

Needs ``langchain-text-splitters`` (``pip install langchain-text-splitters``); ``import cleave``
alone never imports it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as err:  # pragma: no cover - exercised only without the package
    raise ImportError(
        "cleave.langchain needs langchain-text-splitters: pip install langchain-text-splitters"
    ) from err

from cleave import Chunk, Chunker


class CleaveTextSplitter(TextSplitter):
    """Splits texts into cleave chunks: whole functions, classes and sections within
    ``chunk_size`` (counted in ``unit``, header included).

    Each document's metadata gets ``start_index`` and ``end_index`` (character offsets in the
    source text), ``line_start``, ``line_end``, ``scope``, ``symbols``, ``language`` and
    ``chunk_id``. The page content is the header and the text (``include_header=True``, what
    a model should read) or the text alone. A document's ``metadata["source"]``, when it is a
    path, names the chunks and picks the language by extension; ``language=`` picks it by
    name for every text.
    """

    def __init__(
        self,
        chunk_size: int = 2000,
        chunk_overlap: int = 0,
        *,
        unit: str = "chars",
        tokenizer: str = "o200k",
        headers: bool = True,
        include_header: bool = True,
        language: str | None = None,
        add_start_index: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            add_start_index=add_start_index,
            strip_whitespace=False,
            **kwargs,
        )
        self._chunker = Chunker(
            budget=chunk_size,
            unit=unit,
            tokenizer=tokenizer,
            overlap=chunk_overlap,
            headers=headers,
        )
        self._include_header = include_header
        self._language = language

    @property
    def chunker(self) -> Chunker:
        return self._chunker

    def _chunks(self, text: str, source: Any = None) -> list[Chunk]:
        path = source if isinstance(source, str) and source else None
        return self._chunker.chunk_text(text, path=path, language=self._language)

    def _content(self, chunk: Chunk) -> str:
        return chunk.rendered if self._include_header else chunk.text

    def split_text(self, text: str) -> list[str]:
        return [self._content(c) for c in self._chunks(text)]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        metadatas = metadatas or [{}] * len(texts)
        documents = []
        for text, base in zip(texts, metadatas, strict=True):
            for chunk in self._chunks(text, base.get("source")):
                metadata = copy.deepcopy(base)
                if self._add_start_index:
                    metadata["start_index"] = chunk.char_start
                    metadata["end_index"] = chunk.char_end
                metadata.update(
                    chunk_id=chunk.id,
                    language=chunk.language,
                    line_start=chunk.line_start,
                    line_end=chunk.line_end,
                    scope=chunk.scope,
                    symbols=chunk.symbols,
                )
                documents.append(Document(page_content=self._content(chunk), metadata=metadata))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        documents = list(documents)
        return self.create_documents(
            [d.page_content for d in documents], [d.metadata for d in documents]
        )
