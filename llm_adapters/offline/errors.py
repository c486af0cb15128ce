"""Errors of the offline proposer.

    engine.errors.RuleBundleError
    └── OfflineRulesError     a vocabulary or pattern file the proposer needs is missing or malformed
"""

from __future__ import annotations

from engine.errors import RuleBundleError


class OfflineRulesError(RuleBundleError):
    default_code = "proposer.rules_invalid"
