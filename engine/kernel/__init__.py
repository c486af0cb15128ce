"""The kernel: what decides a turn. Commands, conversation state, the epsilon-constrained policy, ports, the
decision layer (acceptance rules, Z3 invariants, bundle proofs), validators, goal models and the turn runtime.
It imports the audit record and the rule bundle loader below it, never the support packages or the edge above
it (the import-linter layers contract in pyproject.toml)."""
