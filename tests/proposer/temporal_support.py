"""Shared fixtures of the temporal tests: a fixed reference time, rules scoped like the proposer scopes them,
and small goal specs with datetime objectives of every granularity."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine.kernel.goal_models import GoalSpec
from llm_adapters.offline.analysis import Analysis, analyze
from llm_adapters.offline.offline_rules import OfflineRules
from llm_adapters.offline.temporal import TemporalMention, temporal_mentions
from tests.proposer.helpers import proposer

REF = datetime(2027, 3, 10, 9, 0, tzinfo=UTC)  # a Wednesday


def rules_for(text: str, language: str) -> OfflineRules:
    return proposer().rules_for(text, language)


def analysis_of(text: str, language: str) -> Analysis:
    return analyze(rules_for(text, language), text)


def objective(oid: str, granularity: str, order: int, cues: dict[str, list[str]] | None = None,
              name: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"granularity": granularity}
    if cues:
        params["cues"] = cues
    return {
        "id": oid, "name": name or oid.replace("_", " "), "questions": {"en": f"What about {oid}?"},
        "criterion": {"kind": "datetime", "description": f"The visitor's {oid.replace('_', ' ')}", "params": params},
        "weight": "1", "order": order,
    }


def spec_with(*objectives: dict[str, Any], language: str = "en", region: str | None = None,
              zone: str | None = "UTC") -> GoalSpec:
    count = len(objectives)
    weights = [f"{1 / count:.4f}"] * count
    weights[-1] = f"{1 - sum(float(w) for w in weights[:-1]):.4f}"
    items = [dict(o, weight=w) for o, w in zip(objectives, weights, strict=True)]
    return GoalSpec.model_validate({
        "schema_version": 1, "id": "temporal-test", "title": "Temporal test company",
        "default_language": language, "languages": sorted({language, "en", "es", "fr"}),
        "manager_intent": "We want to know when.",
        "locale": {"currency": None, "phone_region": region, "time_zone": zone},
        "objectives": items,
    })


def mentions(text: str, language: str = "en", spec: GoalSpec | None = None,
             reference: datetime = REF) -> list[TemporalMention]:
    return temporal_mentions(analysis_of(text, language), reference, spec)


def readings(text: str, language: str = "en", spec: GoalSpec | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """(exact visitor text of the span, values) per mention."""
    analysis = analysis_of(text, language)
    out = []
    for mention in temporal_mentions(analysis, REF, spec):
        start, end = analysis.source_span(mention.start, mention.end)
        out.append((text[start:end], mention.values))
    return out
