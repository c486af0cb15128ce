"""The project bundle's retrieval rules, taken as the service takes them: from the loaded bundle in memory."""

from __future__ import annotations

from functools import lru_cache

from engine.retrieval.retrieval_rules import RetrievalRules, rules_from_bundle
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle


@lru_cache(maxsize=1)
def project_rules() -> RetrievalRules:
    return rules_from_bundle(load_bundle(DEFAULT_RULES_DIR, require_published=False))
