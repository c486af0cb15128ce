"""The graded reply's tier (issue 29): ``answer``, ``related`` or ``none``, from rule data.

The all-or-nothing answer decision threw away most of what retrieval found: the right section was ranked first for
most answerable questions of new companies, yet the model's probability stayed under the answer threshold. Showing
that section's own sentences, framed as "I'm not sure this answers it, but our page … says", asserts nothing the
company did not write. So: ``answer`` when the decision finds a passage that answers with a probability of at least
``answer_min_probability`` (a less confident one is shown as ``related``); ``related`` when it finds none but the
best section stands out for the question (probability or standing over the related thresholds), no precise veto
named something the documents never state, and the asked words the corpus never states weigh at most
``related_max_unknown`` (a never-mentioned topic: "do you sell boats?" where no document names a boat); ``none``
otherwise. The thresholds and the veto list are
``answering`` in rules/retrieval.json; its samples are checked by ``grace rules test``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from engine.retrieval.retrieval_rules import AnsweringSettings, RelatedModel, TierSignals, rules_from_bundle
from engine.rules.loader import RuleBundle

Tier = Literal["answer", "related", "none"]


def related_probability(signals: TierSignals, model: RelatedModel, vetoes: frozenset[str] = frozenset()) -> float:
    """The fitted chance that showing the section helps rather than misleads (benchmarks/fit_tiers.py): a logistic
    model over the section's answer-model features, its probability and whether a related veto fired."""
    values = {**signals.features, "probability": signals.probability, "standing": signals.standing}
    values["vetoed"] = float(signals.veto in vetoes)
    z = model.bias + sum(
        w * (values.get(f, 0.0) - m) / s
        for f, w, m, s in zip(model.features, model.weights, model.mean, model.scale, strict=True)
    )
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def decide_tier(signals: TierSignals, settings: AnsweringSettings) -> Tier:
    if signals.answerable:
        # the decision found an answering passage; only a confident one is stated as the answer
        return "answer" if signals.probability >= settings.answer_min_probability else "related"
    if not signals.retrieved:
        return "none"
    # a precise veto named something the documents never state, or the asked words are mostly never stated
    if signals.veto in settings.related_vetoes or signals.unknown > settings.related_max_unknown:
        return "none"
    model = settings.related_model
    if model is not None and signals.features:
        return "related" if related_probability(signals, model, settings.related_vetoes) >= model.threshold else "none"
    if signals.probability >= settings.related_min_probability or signals.standing >= settings.related_min_standing:
        return "related"
    return "none"


@dataclass(frozen=True)
class TierSampleResult:
    index: int
    signals: TierSignals
    want: Tier
    got: Tier

    @property
    def ok(self) -> bool:
        return self.want == self.got

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        return f"{mark} answering.samples[{self.index}] {self.signals.model_dump()} -> {self.got} (want {self.want})"


def run_tier_samples(bundle: RuleBundle) -> list[TierSampleResult]:
    """Every sample of the answering policy, decided by ``decide_tier`` under the bundle's own settings; none for a
    bundle without retrieval rules (a decision-layer bundle answers no questions)."""
    if "retrieval" not in bundle.files:
        return []
    settings = rules_from_bundle(bundle).answering
    return [
        TierSampleResult(i, sample.signals, sample.tier, decide_tier(sample.signals, settings))
        for i, sample in enumerate(settings.samples)
    ]
