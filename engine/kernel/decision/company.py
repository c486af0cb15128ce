"""The company's own contact values (SPEC.md D-10), gathered once per runtime from the texts it serves."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.kernel.company_data import locale_value
from engine.kernel.decision.provenance import ContactIndex
from engine.kernel.goal_models import CriterionKind, PublishedGoalSpec
from engine.rules.loader import RuleBundle


def company_region(spec: PublishedGoalSpec, bundle: RuleBundle) -> str:
    """The telephone region company numbers are read in: the spec's locale, a contact objective's, the default."""
    for objective in spec.spec.ordered():
        if objective.criterion.kind is CriterionKind.CONTACT:
            region = locale_value(spec.spec, objective.criterion, "phone_region", "default_region")
            if region:
                return str(region)
    if spec.spec.locale is not None and spec.spec.locale.phone_region:
        return spec.spec.locale.phone_region
    return str(bundle.file("criteria")["contact"]["default_region"])


def company_contacts(spec: PublishedGoalSpec, bundle: RuleBundle, answerer: Any,
                     texts: Iterable[str] | None = None) -> ContactIndex:
    """Contacts in ``texts`` plus every text the answerer can show (its ``company_texts()``, when it or the
    answerer it wraps has one)."""
    sources = list(texts or [])
    # the spec's own words are company text too (the manager's intent may name the company's channels)
    sources += [spec.spec.title, spec.spec.manager_intent,
                *(q for o in spec.spec.objectives for q in o.questions.values())]
    for _ in range(8):  # wrappers keep the answerer they wrap in ``inner``
        company_texts = getattr(answerer, "company_texts", None)
        if callable(company_texts):
            sources.extend(company_texts())
            break
        answerer = getattr(answerer, "inner", None)
        if answerer is None:
            break
    return ContactIndex.from_texts(sources, company_region(spec, bundle))
