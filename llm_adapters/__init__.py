"""Proposer adapters behind engine.kernel.ports.Proposer: LLM providers, the deterministic offline proposer, replay."""
