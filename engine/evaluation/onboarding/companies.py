"""The team's own companies onboarded from their intents: compile each config's ``manager_intent`` (no hand spec),
run the annotated conversations against the compiled spec, score against the reference objectives.

    grace bench onboarding --companies benchmarks/companies/conversations.json \\
        [--phrases benchmarks/companies/objective_phrases.json]

Per config of the dataset:

1. The intent is compiled as a new user would (``compile_step``): ``--intent``, ``--language`` and ``--corpus``
   (the company's ``corpus/`` folder beside its hand spec, when it has one) first; when
   compile asks for locale flags the user passes the ones it named, with the company's own values (the locale of
   the config's hand-written ``goal_spec``, i.e. what the company would answer), never anything else.
2. Compiled objectives are mapped to the reference objectives through the phrases the compiler claims
   (``mapping``): each reference objective is located in the intent by the words that ask for it
   (``objective_phrases.json``, written once from the intents), exactly as SGD slots are located by their
   descriptions. An unmapped reference objective is never recorded; an extra compiled objective is scored as a
   coordinate whose reference is always 0.
3. The conversations run through the full turn runtime with the offline proposer; each turn's compiled state is
   projected back onto the reference objectives and scored with STA/TSA/EP/ER/MC, per company and pooled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import GraceError
from engine.evaluation.dataset import parse_dataset
from engine.evaluation.metrics import ConversationOutcome, Metrics, TurnOutcome, compute_metrics
from engine.evaluation.onboarding.compile_step import Compiled, compile_intent
from engine.evaluation.onboarding.errors import OnboardingError
from engine.evaluation.onboarding.mapping import SlotMapping, map_objectives
from engine.evaluation.onboarding.template import Intent
from engine.evaluation.runner import run_dataset
from engine.evaluation.sgd.scoring import add_metrics
from engine.evaluation.targets import candidate_targets
from engine.kernel.ports import Proposer
from engine.rules.loader import RuleBundle

DEFAULT_PHRASES = "objective_phrases.json"  # beside the dataset


@dataclass
class CompanyResult:
    config: str
    intent: Intent
    compiled: Compiled
    mapping: SlotMapping | None
    failure: str | None
    outcomes: list[ConversationOutcome] = field(default_factory=list)

    def metrics(self) -> Metrics:
        return compute_metrics(self.outcomes)

    def kinds(self) -> dict[str, str]:
        """Reference objective -> the kind(s) of the compiled objective(s) claiming it ('unmapped' when none)."""
        if self.mapping is None or self.compiled.spec is None:
            return {s: "compile failed" for s in self.intent.spans}
        kinds = {o.id: o.criterion.kind.value for o in self.compiled.spec.ordered()}
        return {s: "+".join(kinds[o] for o in objs) or "unmapped" for s, objs in self.mapping.by_slot.items()}


def load_phrases(path: Path, dataset: dict[str, Any]) -> dict[str, Intent]:
    """Each config's intent with the span of every reference objective; a phrase not found verbatim is an error."""
    try:
        phrases = json.loads(path.read_text(encoding="utf-8"))["configs"]
    except (OSError, ValueError, KeyError) as exc:
        raise OnboardingError(f"cannot read objective phrases from {path}: {exc}",
                              code="onboarding.phrases_invalid") from exc
    intents: dict[str, Intent] = {}
    for name, config in dataset["configs"].items():
        text = config.get("manager_intent")
        ids = [o["id"] for o in config["objectives"]]
        given = phrases.get(name, {})
        if not text or sorted(given) != sorted(ids):
            raise OnboardingError(f"config {name}: needs a manager_intent and a phrase for each of {', '.join(ids)}",
                                  code="onboarding.phrases_invalid")
        spans: dict[str, tuple[int, int]] = {}
        for objective in ids:
            start = text.find(given[objective])
            if start < 0:
                raise OnboardingError(f"config {name}: {given[objective]!r} is not in its manager_intent",
                                      code="onboarding.phrases_invalid")
            spans[objective] = (start, start + len(given[objective]))
        intents[name] = Intent(text, config.get("language", "en"), spans)
    return intents


def _locale_flags(dataset_path: Path, config: dict[str, Any]) -> dict[str, str]:
    """What the company answers when compile asks for a locale flag: its hand spec's locale."""
    spec = json.loads((dataset_path.parent / config["goal_spec"]).read_text(encoding="utf-8"))
    locale = spec.get("locale") or {}
    names = {"currency": "--currency", "phone_region": "--phone-region", "time_zone": "--time-zone"}
    return {flag: str(locale[key]) for key, flag in names.items() if locale.get(key)}


def _corpus(dataset_path: Path, config: dict[str, Any]) -> Path | None:
    """The company's documents (``corpus/`` beside its hand spec), given to compile as a new user would."""
    folder = (dataset_path.parent / config["goal_spec"]).parent / "corpus"
    return folder if folder.is_dir() else None


def _reference_bits(reference: str, ids: list[str], mapping: SlotMapping) -> str:
    """A reference state over the reference objectives -> the scored coordinates' bits (extras always 0)."""
    bits = dict(zip(ids, reference, strict=True))
    return "".join(bits[s] for s in mapping.slots) + "0" * len(mapping.extra)


def run_company(name: str, dataset: dict[str, Any], dataset_path: Path, intent: Intent, *, bundle: RuleBundle,
                proposer: Proposer, folder: Path, rules: Path | None) -> CompanyResult:
    config = dataset["configs"][name]
    ids = [o["id"] for o in config["objectives"]]
    spec_id = f"onboard-{name.replace('_', '-')}"
    compiled = compile_intent(intent.text, intent.language, spec_id, folder, rules,
                              answers=_locale_flags(dataset_path, config), corpus=_corpus(dataset_path, config))
    conversations = [c for c in dataset["conversations"] if c["config"] == name]
    result = CompanyResult(name, intent, compiled, None, None)
    if not compiled.ok or compiled.spec is None or compiled.spec_path is None:
        result.failure = f"compile:{compiled.error_code}"
    else:
        result.mapping = map_objectives(compiled.spec, intent)
        try:
            targets = candidate_targets([compiled.spec_path], bundle, with_answerer=False)
        except GraceError as exc:
            result.failure = f"runtime:{exc.code}"
    if result.failure is not None or result.mapping is None:
        zero = "0" * len(ids)
        result.outcomes = [ConversationOutcome(c["id"], zero, tuple(
            TurnOutcome(t["turn"], zero, t["reference"], t.get("scored", True)) for t in c["turns"]))
            for c in conversations]
        return result
    mapping = result.mapping
    claimed = {o: [s for s, objs in mapping.by_slot.items() if o in objs] for o in mapping.objectives}
    own = {**dataset, "name": f"onboarding-companies-{name}", "configs": {spec_id: {
        "language": config.get("language", "en"), "objectives": [{"id": o} for o in mapping.objectives]}},
        "conversations": [{**c, "config": spec_id, "turns": [
            {**t, "reference": "".join("1" if any(t["reference"][ids.index(s)] == "1" for s in claimed[o])
                                       else "0" for o in mapping.objectives)} for t in c["turns"]]}
            for c in conversations]}
    runs = run_dataset(parse_dataset(own), targets, bundle=bundle, proposer=proposer, demo=spec_id)
    for run, conversation in zip(runs, conversations, strict=True):
        result.outcomes.append(ConversationOutcome(run.id, mapping.project(run.initial), tuple(
            TurnOutcome(row.turn, mapping.project(row.state), _reference_bits(turn["reference"], ids, mapping),
                        turn.get("scored", True))
            for row, turn in zip(run.turns, conversation["turns"], strict=True))))
    return result


def run_companies(dataset_path: Path, phrases_path: Path | None, *, bundle: RuleBundle, proposer: Proposer,
                  folder: Path, rules: Path | None) -> list[CompanyResult]:
    try:
        dataset = json.loads(dataset_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OnboardingError(f"cannot read {dataset_path}: {exc}", code="onboarding.companies_invalid") from exc
    intents = load_phrases(phrases_path or dataset_path.parent / DEFAULT_PHRASES, dataset)
    return [run_company(name, dataset, dataset_path, intents[name], bundle=bundle, proposer=proposer,
                        folder=folder, rules=rules) for name in dataset["configs"]]


def companies_table(results: list[CompanyResult]) -> str:
    from engine.evaluation.onboarding.report import METRICS, _cell

    lines = [f"{'company':<18} {'compiled':<40} " + " ".join(f"{m:<17}" for m in METRICS)]
    for r in results:
        status = r.failure or ", ".join(f"{s}={k}" for s, k in r.kinds().items() if k == "unmapped") or "mapped"
        if r.mapping is not None and r.mapping.extra:
            status += f"; {len(r.mapping.extra)} extra"
        lines.append(f"{r.config:<18} {status[:40]:<40} " + " ".join(f"{_cell(r.metrics(), m):<17}" for m in METRICS))
    pooled = add_metrics(r.metrics() for r in results)
    lines.append(f"{'POOLED':<18} {'':<40} " + " ".join(f"{_cell(pooled, m):<17}" for m in METRICS))
    lines.append("")
    for r in results:
        lines.append(f"{r.config}: " + "; ".join(f"{s} -> {'+'.join(r.mapping.by_slot[s]) if r.mapping else '-'} "
                                                  f"({k})" for s, k in r.kinds().items())
                     + (f"; extra {', '.join(r.mapping.extra)}" if r.mapping is not None and r.mapping.extra
                        else ""))
        if r.failure is not None:
            lines.append(f"  {r.failure}: {r.compiled.error}")
    return "\n".join(lines)


def companies_json(results: list[CompanyResult]) -> dict[str, Any]:
    return {"benchmark": "onboarding-companies",
            "pooled": add_metrics(r.metrics() for r in results).as_dict(),
            "companies": {r.config: {
                "intent": r.intent.text, "failure": r.failure, "locale_flags": list(r.compiled.flags),
                "objectives": [] if r.compiled.spec is None else [
                    {"id": o.id, "kind": o.criterion.kind.value,
                     "intent_phrases": o.criterion.params.get("intent_phrases", [])}
                    for o in r.compiled.spec.ordered()],
                "mapping": None if r.mapping is None else {
                    "by_reference": {s: list(o) for s, o in r.mapping.by_slot.items()},
                    "extra": list(r.mapping.extra)},
                "metrics": r.metrics().as_dict()} for r in results}}
