"""Deterministic validators, one per criterion kind. The LLM proposes; these decide."""

from engine.kernel.validators.registry import validate_value
from engine.kernel.validators.result import ValidationResult

__all__ = ["ValidationResult", "validate_value"]
