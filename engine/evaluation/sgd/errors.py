"""Errors of the SGD benchmark package.

    engine.evaluation.errors.EvaluationError
    └── SgdError      the SGD folder is missing or malformed, or a service / mapping cannot be used

Codes: ``sgd.data_missing``, ``sgd.data_unreadable``, ``sgd.data_invalid``, ``sgd.service_unknown``,
``sgd.mapping_missing``, ``sgd.mapping_invalid``, ``sgd.no_dialogues``, ``sgd.limit_invalid``.
"""

from __future__ import annotations

from engine.evaluation.errors import EvaluationError


class SgdError(EvaluationError):
    default_code = "sgd.invalid"
