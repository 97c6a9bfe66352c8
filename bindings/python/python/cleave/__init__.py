"""cleave: chunk repositories and documents for LLMs.

Every chunk is a whole syntactic or structural unit (a function, a class, a section), fits the
budget with its context header, and records where it comes from: path, lines, byte and
character offsets, enclosing scope, symbols. The chunks are the CLI's records, byte for byte.

    >>> import cleave
    >>> chunker = cleave.Chunker(budget=400)
    >>> chunks = chunker.chunk_text("def f():\\n    return 1\\n", path="a.py")
    >>> [c.symbols for c in chunks]
    [['f']]

Adapters (their packages are imported only when the adapter module is):
``cleave.langchain.CleaveTextSplitter`` and ``cleave.llama_index.CleaveNodeParser``.
"""

from importlib.metadata import PackageNotFoundError, version

from cleave._cleave import (
    DEFAULT_MAX_FILE_SIZE,
    LANGUAGES,
    Chunk,
    Chunker,
    ChunkTree,
    CleaveError,
    FileResult,
    walk,
)

try:
    __version__ = version("cleave")
except PackageNotFoundError:  # imported from a source tree without being installed
    __version__ = "0.0.0"

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "LANGUAGES",
    "Chunk",
    "ChunkTree",
    "Chunker",
    "CleaveError",
    "FileResult",
    "__version__",
    "walk",
]
