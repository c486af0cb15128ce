"""How the decision is made fast, apart from what it decides: memo tables, shared tables and Z3's C API.

Each module here answers exactly what a plain class of the decision layer answers (``acceptance.AcceptanceRules``,
``policy.PolicyConfig``, ``invariants.SolverChecker``), and tests/core/test_decision_memo.py and the differential
tests compare the two on generated cases. Reading the decision needs none of this package."""
