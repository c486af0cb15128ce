"""Errors of the evaluation package.

    engine.errors.InputError
    └── EvaluationError      a dataset is malformed, or names a config no demo can run
"""

from __future__ import annotations

from engine.errors import InputError


class EvaluationError(InputError):
    default_code = "eval.invalid"
