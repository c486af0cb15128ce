"""The formal specification of GRACE: SPEC.md, the executable reference model and the Z3 encodings."""
