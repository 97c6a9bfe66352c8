"""The LangChain and LlamaIndex adapters, with the real packages (skipped when absent)."""

from __future__ import annotations

import pytest

import cleave

TEXT = '''"""Billing — façade for the «ledger» 💶."""


class Ledger:
    """Keeps entries."""

    def add(self, amount):
        self.entries.append(amount)

    def total(self):
        return sum(self.entries)


def charge(ledger, amount):
    ledger.add(amount)
    return ledger.total()


def refund(ledger, amount):
    ledger.add(-amount)
    return ledger.total()
'''


def test_langchain_documents_carry_exact_offsets() -> None:
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter

    from cleave.langchain import CleaveTextSplitter

    splitter = CleaveTextSplitter(chunk_size=160)
    assert isinstance(splitter, TextSplitter)
    source = Document(page_content=TEXT, metadata={"source": "billing/ledger.py", "team": "pay"})
    docs = splitter.split_documents([source])
    chunks = cleave.Chunker(budget=160).chunk_text(TEXT, path="billing/ledger.py")
    assert len(docs) == len(chunks) > 2
    for doc, chunk in zip(docs, chunks):
        m = doc.metadata
        assert m["team"] == "pay" and m["source"] == "billing/ledger.py"
        assert TEXT[m["start_index"] : m["end_index"]] == chunk.text
        assert doc.page_content == chunk.header + chunk.text
        assert (m["line_start"], m["line_end"], m["chunk_id"]) == (
            chunk.line_start,
            chunk.line_end,
            chunk.id,
        )
        assert m["scope"] == chunk.scope and m["symbols"] == chunk.symbols
        assert m["language"] == "python"
    # A header names the file where the budget leaves room for it.
    assert any(d.page_content.startswith("# billing/ledger.py\n") for d in docs)
    assert any("Ledger.add" in d.metadata["symbols"] for d in docs)

    # Without headers in the content, the content is exactly the slice.
    bare = CleaveTextSplitter(chunk_size=160, include_header=False, language="python")
    for doc in bare.create_documents([TEXT, TEXT], [{"n": 1}, {"n": 2}]):
        assert TEXT[doc.metadata["start_index"] : doc.metadata["end_index"]] == doc.page_content
    assert bare.split_text(TEXT) == [c.text for c in cleave.Chunker(budget=160).chunk_text(TEXT, language="python")]
    # LangChain's own options are validated by LangChain, cleave's by cleave.
    with pytest.raises(ValueError):
        CleaveTextSplitter(chunk_size=100, chunk_overlap=60)
    with pytest.raises(ValueError):
        CleaveTextSplitter(chunk_size=100, unit="lines")


def test_llama_index_nodes_carry_offsets_and_source() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import NodeRelationship, TextNode

    from cleave.llama_index import CleaveNodeParser

    parser = CleaveNodeParser(budget=160)
    assert isinstance(parser, NodeParser)
    doc = Document(text=TEXT, metadata={"file_path": "billing/ledger.py", "team": "pay"})
    other = Document(text="# Notes\n\nSee §2 — ¡olé!\n", metadata={"file_name": "notes.md"})
    nodes = parser.get_nodes_from_documents([doc, other])
    chunks = cleave.Chunker(budget=160).chunk_text(TEXT, path="billing/ledger.py")
    mine = [n for n in nodes if n.ref_doc_id == doc.id_]
    assert len(mine) == len(chunks) > 2 and len(nodes) == len(chunks) + 1
    for node, chunk in zip(mine, chunks):
        assert isinstance(node, TextNode)
        assert TEXT[node.start_char_idx : node.end_char_idx] == chunk.text
        assert node.text == chunk.rendered
        assert node.relationships[NodeRelationship.SOURCE].node_id == doc.id_
        assert node.metadata["team"] == "pay" and node.metadata["chunk_id"] == chunk.id
        assert node.metadata["symbols"] == chunk.symbols
        assert "chunk_id" in node.excluded_embed_metadata_keys
    assert nodes[-1].metadata["language"] == "markdown"
    # Consecutive nodes of one document are linked.
    assert mine[1].relationships[NodeRelationship.PREVIOUS].node_id == mine[0].node_id

    bare = CleaveNodeParser(budget=160, include_header=False, language="python")
    for node in bare.get_nodes_from_documents([Document(text=TEXT)]):
        assert TEXT[node.start_char_idx : node.end_char_idx] == node.text
    with pytest.raises(ValueError):
        CleaveNodeParser(budget=2)
