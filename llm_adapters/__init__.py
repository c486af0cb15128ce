"""Proposer adapters behind engine.ports.Proposer: LLM providers, the deterministic offline proposer, replay."""
