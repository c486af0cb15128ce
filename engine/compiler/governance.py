"""Permitted-data check (Algorithm 1, step 4): no objective may ask for a prohibited data category.

``check_governance`` is pure: it scans each objective's name, canonical questions and criterion description
for the keywords of every category in rules/governance.json and returns one issue per (objective, category).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from engine.compiler.compiler_rules import GovernanceRules, load_governance_rules
from engine.compiler.errors import PROHIBITED_CATEGORY
from engine.compiler.matching import Match
from engine.goals.models import GoalSpec
from engine.text import fold


def find_prohibited(texts: Iterable[str], rules: GovernanceRules) -> list[Match]:
    """Every prohibited-category keyword found in ``texts`` (first hit per category), in category order."""
    index = rules.keyword_index()
    hits: dict[str, Match] = {}
    for text in texts:
        for match in index.longest_first(fold(text)):
            hits.setdefault(match.label, match)
    order = [c.id for c in rules.categories]
    return sorted(hits.values(), key=lambda m: order.index(m.label))


def category_label(rules: GovernanceRules, category_id: str, language: str = "en") -> str:
    category = next(c for c in rules.categories if c.id == category_id)
    return category.label.get(language) or category.label["en"]


@lru_cache(maxsize=4)
def _rules_from_json(canonical: str) -> GovernanceRules:
    return load_governance_rules(json.loads(canonical))


def _as_rules(governance_rules: GovernanceRules | Mapping[str, Any]) -> GovernanceRules:
    """Typed rules; a mapping (``bundle.file('governance')``) is parsed once per distinct content."""
    if isinstance(governance_rules, GovernanceRules):
        return governance_rules
    return _rules_from_json(json.dumps(governance_rules, sort_keys=True, ensure_ascii=False))


def check_governance(
    spec: GoalSpec, governance_rules: GovernanceRules | Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Issues ``(goalspec.prohibited_category, message)``, one per objective and category; empty = permitted."""
    rules = _as_rules(governance_rules)
    issues: list[tuple[str, str]] = []
    for objective in spec.ordered():
        texts = [objective.name, objective.criterion.description, *objective.questions.values()]
        for match in find_prohibited(texts, rules):
            if rules.exempt(match.label, spec.id):
                continue
            issues.append((
                PROHIBITED_CATEGORY,
                f"objective '{objective.id}' asks for a prohibited data category: {match.label} "
                f"({category_label(rules, match.label)}; matched '{match.keyword}')",
            ))
    return issues
