"""TRACE: constraint-aware retrieval over noisy service directories (ingest, knowledge graph, query parsing,
evidence-filtered retrieval, GRACE answerer, benchmark). See ``retriever`` for the pipeline and variants."""

from engine.directory.answer import DirectoryAnswerer
from engine.directory.ingest import Directory, load_directory
from engine.directory.retriever import Answer, Result, TraceRetriever, Variant

__all__ = ["Answer", "Directory", "DirectoryAnswerer", "Result", "TraceRetriever", "Variant", "load_directory"]
