"""GRACE engine: goal specs, deterministic decisions, policy and the turn runtime."""

__version__ = "0.1.0"
