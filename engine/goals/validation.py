"""Deterministic goal-spec validation (Algorithm 1, step 4). Every failure has a stable code."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import GoalSpecError
from engine.goals.company_data import company_data_issues, resolve_vocabulary
from engine.goals.models import CriterionKind, GoalSpec
from engine.rules_bundle import RuleBundle

_VOCABULARY_KINDS = {CriterionKind.ENUMERATION, CriterionKind.FEATURES, CriterionKind.PLACE}
_NEEDS_VOCABULARY = {CriterionKind.ENUMERATION, CriterionKind.FEATURES}


def parse_spec(data: Any) -> GoalSpec:
    """Parse raw JSON data into a GoalSpec, mapping pydantic errors to stable codes."""
    if not isinstance(data, dict):
        raise GoalSpecError([("goalspec.not_an_object", "a goal spec must be a JSON object")])
    try:
        return GoalSpec.model_validate(data)
    except ValidationError as exc:
        issues = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(top)"
            code = "goalspec.field_missing" if err["type"] == "missing" else "goalspec.field_invalid"
            if err["type"] == "extra_forbidden":
                code = "goalspec.field_unknown"
            issues.append((code, f"{where}: {err['msg']}"))
        raise GoalSpecError(issues) from exc


def read_spec_file(path: Path) -> GoalSpec:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GoalSpecError([("goalspec.unreadable", f"{path}: {exc.strerror}")]) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GoalSpecError([("goalspec.json_invalid", f"{path.name}: not valid JSON ({exc})")]) from exc
    return parse_spec(data)


def semantic_issues(spec: GoalSpec, bundle: RuleBundle) -> list[tuple[str, str]]:
    issues: list[tuple[str, str]] = company_data_issues(spec, bundle)
    ids = [o.id for o in spec.objectives]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        issues.append(("goalspec.duplicate_id", f"objective id '{dup}' is used more than once"))
    orders = [o.order for o in spec.objectives]
    if sorted(orders) != list(range(1, len(orders) + 1)):
        issues.append(("goalspec.order_invalid", f"approved orders must be 1..{len(orders)} without gaps: {orders}"))
    total = sum((o.weight for o in spec.objectives), Decimal(0))
    # Exact decimal arithmetic: weights are written as decimals, so the sum must be exactly 1.
    if total != Decimal(1):
        issues.append(("goalspec.weights_not_normalised", f"weights sum to {total}, not exactly 1"))
    if spec.default_language not in spec.languages:
        issues.append(("goalspec.language_invalid", f"default language {spec.default_language} not in languages"))
    for objective in spec.objectives:
        missing = [lang for lang in spec.languages if not objective.questions.get(lang, "").strip()]
        if missing:
            issues.append(("goalspec.question_missing",
                           f"objective '{objective.id}' has no canonical question for {', '.join(missing)}"))
        kind = objective.criterion.kind
        vocab_id = objective.criterion.params.get("vocabulary")
        if kind in _NEEDS_VOCABULARY and vocab_id is None:
            issues.append(("goalspec.vocabulary_missing", f"objective '{objective.id}' ({kind}) needs a vocabulary"))
        if vocab_id is not None:
            vocabulary = resolve_vocabulary(str(vocab_id), spec, bundle)
            if vocabulary is None:
                issues.append(("goalspec.vocabulary_unknown",
                               f"objective '{objective.id}' names unknown vocabulary '{vocab_id}'"))
            elif kind not in _VOCABULARY_KINDS or vocabulary.kind != kind.value:
                issues.append((
                    "goalspec.vocabulary_kind_mismatch",
                    f"objective '{objective.id}' is {kind} but vocabulary '{vocab_id}' is {vocabulary.kind}",
                ))
    if spec.initial_state is not None and (
        len(spec.initial_state) != len(spec.objectives) or any(b not in (0, 1) for b in spec.initial_state)
    ):
        issues.append(("goalspec.initial_state_invalid", "initial_state must hold one 0/1 per objective"))
    issues.extend(_governance_issues(spec, bundle))
    return issues


def _governance_issues(spec: GoalSpec, bundle: RuleBundle) -> list[tuple[str, str]]:
    if not bundle.has("governance"):
        return [("goalspec.governance_missing", "the rule bundle has no governance.json: cannot check data categories")]
    from engine.compiler.governance import check_governance

    return list(check_governance(spec, bundle.file("governance")))


def validate_spec(spec: GoalSpec, bundle: RuleBundle) -> GoalSpec:
    issues = semantic_issues(spec, bundle)
    if issues:
        raise GoalSpecError(issues)
    return spec
