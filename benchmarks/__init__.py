"""Benchmarks that print numbers (never asserted as wall-clock limits in tests)."""
