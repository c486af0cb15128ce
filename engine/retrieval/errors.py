"""Errors of the retrieval package (RAG, paper eqs. 6-8)::

engine.errors.InputError
├── CorpusError           retrieval.corpus.*    a corpus folder, manifest or file is unusable
├── RetrievalConfigError  retrieval.config.*    bad backend name, embedder name, filter or option
├── LabelledSetError      retrieval.set.*       a labelled benchmark set is missing or malformed
└── RetrievalRulesError   retrieval.rules.*     rules/retrieval.json failed schema or semantic checks
engine.errors.GraceError
└── RetrievalError        retrieval.*           retrieval failed at run time
    └── BackendError      retrieval.backend.*   the vector backend (Weaviate) failed or is unreachable
"""

from __future__ import annotations

from engine.errors import GraceError, InputError, RuleBundleError


class CorpusError(InputError):
    default_code = "retrieval.corpus.invalid"


class RetrievalConfigError(InputError):
    default_code = "retrieval.config.invalid"


class LabelledSetError(InputError):
    default_code = "retrieval.set.invalid"


class RetrievalRulesError(RuleBundleError):
    default_code = "retrieval.rules.invalid"


class RetrievalError(GraceError):
    default_code = "retrieval.failed"


class BackendError(RetrievalError):
    default_code = "retrieval.backend.failed"


__all__ = [
    "BackendError",
    "CorpusError",
    "LabelledSetError",
    "RetrievalConfigError",
    "RetrievalError",
    "RetrievalRulesError",
]
