"""Deterministic goal-spec validation (Algorithm 1, step 4). Every failure has a stable code."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import GoalSpecError
from engine.goals.widget import widget_issues
from engine.kernel.company_data import company_data_issues, resolve_vocabulary
from engine.kernel.goal_models import CriterionKind, GoalSpec
from engine.kernel.validators.availability import SufficesError, parse_suffices
from engine.rules.loader import RuleBundle

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
    # INVARIANT (I-1): exact decimal arithmetic; weights are written as decimals, so the sum must be exactly 1.
    if total != Decimal(1):
        issues.append(("goalspec.weights_not_normalised", f"weights sum to {total}, not exactly 1"))
    if spec.default_language not in spec.languages:
        issues.append(("goalspec.language_invalid", f"default language {spec.default_language} not in languages"))
    offered = set(spec.languages)
    if spec.closing is not None:
        extra = sorted(set(spec.closing.next_step) - offered)
        if extra:
            issues.append(("goalspec.language_invalid", f"closing next_step in languages not offered: {extra}"))
    issues.extend(widget_issues(spec))
    for objective in spec.objectives:
        extra = sorted(set(objective.labels) - offered)
        if extra:
            issues.append(("goalspec.language_invalid",
                           f"objective '{objective.id}' has labels in languages not offered: {extra}"))
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
    issues.extend(completion_issues(spec))
    issues.extend(_intent_issues(spec, bundle))
    return issues


# Datetime granularities a proposer can complete (spec/adr/0003 §2), and the contact channels it knows.
_GRANULARITIES = ("date", "time", "datetime", "schedule", "timeframe", "availability")
_CHANNELS = {"email", "phone"}


def _suffices_problem(params: dict[str, object]) -> str | None:
    """An availability criterion's ``suffices`` (spec/adr/0008) must parse; other granularities have none."""
    if params.get("granularity", "date") != "availability":
        return "suffices applies only to granularity 'availability'"
    try:
        parse_suffices(params["suffices"])
    except SufficesError as exc:
        return str(exc)
    return None


def completion_issues(spec: GoalSpec) -> list[tuple[str, str]]:
    """Objectives the proposer could never complete: their criterion params are outside what it reads."""
    issues: list[tuple[str, str]] = []
    for objective in spec.objectives:
        kind, params = objective.criterion.kind, objective.criterion.params
        problem = None
        if kind is CriterionKind.DATETIME and params.get("granularity", "date") not in _GRANULARITIES:
            problem = f"granularity {params.get('granularity')!r} is not one of {', '.join(_GRANULARITIES)}"
        elif kind is CriterionKind.DATETIME and "suffices" in params:
            problem = _suffices_problem(params)
        elif kind is CriterionKind.QUANTITY:
            low, high = params.get("min"), params.get("max")
            terms = params.get("unit_terms", {})
            if any(v is not None and not isinstance(v, int | float) for v in (low, high)):
                problem = "min and max must be numbers"
            elif isinstance(low, int | float) and isinstance(high, int | float) and low > high:
                problem = f"min {low} is greater than max {high}"
            elif not isinstance(terms, dict) or not all(
                    isinstance(v, list) and v and all(isinstance(x, str) and x for x in v) for v in terms.values()):
                problem = "unit_terms must map languages to non-empty lists of nouns"
        elif kind is CriterionKind.CONTACT:
            channels = params.get("channels", sorted(_CHANNELS))
            if not isinstance(channels, list) or not channels or not set(channels) <= _CHANNELS:
                problem = f"channels {channels!r} must be a non-empty subset of {sorted(_CHANNELS)}"
        cues = params.get("cues")
        if problem is None and cues is not None and not (isinstance(cues, dict) and all(
                isinstance(v, list) and all(isinstance(x, str) for x in v) for v in cues.values())):
            problem = "cues must map languages to lists of terms"
        if problem is not None:
            issues.append(("goalspec.criterion_incompletable", f"objective '{objective.id}' ({kind}): {problem}"))
    return issues


def _intent_issues(spec: GoalSpec, bundle: RuleBundle) -> list[tuple[str, str]]:
    """Every phrase of the manager's intent must be collected by some objective (rules of compiler.json)."""
    if not bundle.has("compiler") or not spec.manager_intent.strip():
        return []
    from engine.compiler.compiler_rules import load_compiler_rules
    from engine.compiler.coverage import intent_issues

    return intent_issues(spec, load_compiler_rules(bundle.file("compiler")))


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
