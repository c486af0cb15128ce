"""Evaluation of whole conversations through the turn runtime against reference state vectors (paper eqs. 16-20)."""
