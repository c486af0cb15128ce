"""Deterministic validators, one per criterion kind. The LLM proposes; these decide."""

from engine.validators.registry import ValidationResult, validate_value

__all__ = ["ValidationResult", "validate_value"]
