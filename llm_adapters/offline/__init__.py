"""Deterministic offline proposer: rule-driven evidence extraction, no model and no network."""

from llm_adapters.offline.offline_rules import OfflineRules, build_rules, load_offline_rules
from llm_adapters.offline.proposer import OfflineProposer

__all__ = ["OfflineProposer", "OfflineRules", "build_rules", "load_offline_rules"]
