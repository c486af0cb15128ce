"""Test-only helpers shared by the suites."""
