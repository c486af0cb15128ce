"""Errors of the offline proposer.

    engine.errors.RuleBundleError
    ├── OfflineRulesError     a vocabulary or pattern file the proposer needs is missing or malformed
    └── ScorerError           proposer.scorer.*: the learned answer scorer's model file is unusable, or it was
                              handed text that is not the visitor's (llm_adapters/offline/answer_scorer.py)
"""

from __future__ import annotations

from engine.errors import RuleBundleError


class OfflineRulesError(RuleBundleError):
    default_code = "proposer.rules_invalid"


class ScorerError(RuleBundleError):
    default_code = "proposer.scorer.invalid"
