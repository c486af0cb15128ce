"""Company data carried by a goal spec (spec/adr/0003): its vocabularies and its locale.

A criterion's ``params.vocabulary`` resolves to the spec's own vocabulary first, then to the rule bundle's
shared one, so a new company goes live without editing ``rules/``. The locale (currency, phone region, time
zone) is read before criterion params and bundle defaults.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jsonschema

from engine.kernel.goal_models import Criterion, GoalSpec
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, Vocabulary, vocabulary_from_json

_VOCABULARY_SCHEMA = "vocabulary.schema.json"


_BY_SPEC: OrderedDict[int, tuple[GoalSpec, dict[str, Vocabulary]]] = OrderedDict()
_BY_SPEC_LIMIT = 64
_LOCK = threading.Lock()


def spec_vocabularies(spec: GoalSpec) -> dict[str, Vocabulary]:
    """The spec's own vocabularies (checked by :func:`company_data_issues` before publication), converted once
    per spec object: validation runs on every candidate of every turn."""
    if not spec.vocabularies:
        return {}
    key = id(spec)
    with _LOCK:
        hit = _BY_SPEC.get(key)
        if hit is not None and hit[0] is spec:
            _BY_SPEC.move_to_end(key)
            return hit[1]
    converted = {vocab_id: vocabulary_from_json(vocab_id, data) for vocab_id, data in spec.vocabularies.items()}
    with _LOCK:
        _BY_SPEC[key] = (spec, converted)  # the spec is kept alive with its entry, so its id stays its own
        while len(_BY_SPEC) > _BY_SPEC_LIMIT:
            _BY_SPEC.popitem(last=False)
    return converted


def resolve_vocabulary(vocab_id: str, spec: GoalSpec | None, bundle: RuleBundle) -> Vocabulary | None:
    if spec is not None:
        own = spec_vocabularies(spec).get(vocab_id)
        if own is not None:
            return own
    return bundle.vocabularies.get(vocab_id)


def criterion_vocabulary(criterion: Criterion, spec: GoalSpec | None, bundle: RuleBundle) -> Vocabulary | None:
    vocab_id = criterion.params.get("vocabulary")
    return None if vocab_id is None else resolve_vocabulary(str(vocab_id), spec, bundle)


def locale_value(spec: GoalSpec | None, criterion: Criterion, name: str, param: str) -> Any:
    """A locale setting for one criterion: the criterion's explicit param wins, then the spec's locale."""
    if param in criterion.params:
        return criterion.params[param]
    if spec is not None and spec.locale is not None:
        return getattr(spec.locale, name)
    return None


def time_zone(spec: GoalSpec | None) -> ZoneInfo:
    name = spec.locale.time_zone if spec is not None and spec.locale is not None else None
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")  # unreachable for validated specs: vocabulary_issues rejects unknown zones


def _schema(bundle: RuleBundle) -> dict[str, Any]:
    """The bundle's vocabulary schema as verified with it (in memory); the packaged one when the bundle has
    no vocabulary files (test bundles of the core files only)."""
    loaded = bundle.schemas.get(f"schemas/{_VOCABULARY_SCHEMA}")
    if loaded is not None:
        return loaded
    path: Path = bundle.root / "schemas" / _VOCABULARY_SCHEMA
    if not path.is_file():
        path = DEFAULT_RULES_DIR / "schemas" / _VOCABULARY_SCHEMA
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def company_data_issues(spec: GoalSpec, bundle: RuleBundle) -> list[tuple[str, str]]:
    """Schema and consistency problems of the spec's vocabularies and locale, with stable codes."""
    issues: list[tuple[str, str]] = []
    schema = _schema(bundle) if spec.vocabularies else {}
    for vocab_id, data in spec.vocabularies.items():
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
            issues.append(("goalspec.vocabulary_invalid", f"vocabulary '{vocab_id}' at {where}: {exc.message}"))
            continue
        if data.get("id") != vocab_id:
            issues.append(("goalspec.vocabulary_invalid",
                           f"vocabulary '{vocab_id}' declares id '{data.get('id')}' (they must be equal)"))
    zone = spec.locale.time_zone if spec.locale is not None else None
    if zone is not None:
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            issues.append(("goalspec.time_zone_unknown", f"locale.time_zone '{zone}' is not an IANA time zone"))
    return issues
