"""The deterministic decision layer: acceptance rules (durable-rules), validators, Z3 invariants, policy."""
