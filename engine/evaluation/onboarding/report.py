"""Text tables and JSON of an onboarding run: per service, pooled, the SGD-X spread and failures by class."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.evaluation.metrics import Metrics
from engine.evaluation.onboarding.bench import ServiceResult, VariantResult

METRICS = ("STA", "TSA", "EP", "ER", "MC")


def _cell(metrics: Metrics, name: str) -> str:
    ratio = dict(metrics.items())[name]
    return f"{100 * ratio.value:5.1f} {ratio.hits:>5}/{ratio.total:<5}"


def _status(r: ServiceResult) -> str:
    if r.failure is not None:
        return r.failure
    assert r.mapping is not None
    parts = [f"{len(r.mapping.objectives)} obj"]
    if r.mapping.unmapped:
        parts.append(f"{len(r.mapping.unmapped)} unmapped")
    if r.mapping.extra:
        parts.append(f"{len(r.mapping.extra)} extra")
    if r.compiled.flags:
        parts.append("flags " + " ".join(f.lstrip("-") for f in r.compiled.flags))
    return ", ".join(parts)


def service_table(result: VariantResult) -> str:
    lines = [f"{'service':<15} {'slots':>5} {'compiled':<36} {'dlg/turns':<12} "
             + " ".join(f"{m:<17}" for m in METRICS)]
    for r in result.services:
        lines.append(f"{r.service:<15} {len(r.choice.slots):>5} {_status(r)[:36]:<36} "
                     f"{len(r.outcomes)}/{r.turns:<8} " + " ".join(f"{_cell(r.metrics(), m):<17}" for m in METRICS))
    turns = sum(r.turns for r in result.services)
    dialogues = sum(len(r.outcomes) for r in result.services)
    lines.append(f"{'POOLED':<15} {sum(len(r.choice.slots) for r in result.services):>5} "
                 f"{_summary(result)[:36]:<36} {dialogues}/{turns:<8} "
                 + " ".join(f"{_cell(result.pooled(), m):<17}" for m in METRICS))
    return "\n".join(lines)


def _summary(result: VariantResult) -> str:
    return (f"{len(result.compile_failures)} failed, {result.unmapped} unmapped, {result.extra} extra")


def slot_table(result: VariantResult) -> str:
    """Per asked slot (and extra objective): the kind GRACE gave it and its bit accuracy / final bit / EP / ER."""
    lines = [f"{'service':<15} {'slot':<28} {'kind':<18} " + " ".join(f"{m:<17}" for m in ("bit", "final", "EP",
                                                                                               "ER"))]
    for r in result.services:
        for coordinate, metrics in r.per_coordinate().items():
            lines.append(f"{r.service:<15} {coordinate[:28]:<28} {r.kind_of(coordinate)[:18]:<18} "
                         + " ".join(f"{_cell(metrics, m):<17}" for m in ("STA", "TSA", "EP", "ER")))
    return "\n".join(lines)


def spread_table(results: Sequence[VariantResult]) -> str:
    """Pooled metrics per wording (0 = original) and each wording's STA minus the original's."""
    base = next((r.pooled().sta.value for r in results if r.variant == 0), None)
    lines = [f"{'wording':<9} " + " ".join(f"{m:<17}" for m in METRICS) + " ΔSTA   failed unmapped extra"]
    for r in results:
        delta = "" if base is None else f"{100 * (r.pooled().sta.value - base):+5.1f}"
        lines.append(f"{'original' if r.variant == 0 else f'v{r.variant}':<9} "
                     + " ".join(f"{_cell(r.pooled(), m):<17}" for m in METRICS)
                     + f" {delta:<6} {len(r.compile_failures):>6} {r.unmapped:>8} {r.extra:>5}")
    values = [100 * r.pooled().sta.value for r in results]
    if len(values) > 1:
        lines.append(f"STA spread over {len(values)} wordings: {max(values) - min(values):.1f} points "
                     f"(min {min(values):.1f}, max {max(values):.1f})")
    return "\n".join(lines)


def failure_classes(result: VariantResult) -> Counter[str]:
    """Counts per failure class: compile errors by code, unmapped slots, extra objectives, turn-level misses."""
    classes: Counter[str] = Counter()
    for r in result.services:
        if r.failure is not None:
            classes[f"service not compiled ({r.failure})"] += 1
            continue
        assert r.mapping is not None
        classes["slot unmapped (no objective claims its words)"] += len(r.mapping.unmapped)
        classes["extra objective (claims no slot's words)"] += len(r.mapping.extra)
        classes["slot split over several objectives"] += sum(1 for o in r.mapping.by_slot.values() if len(o) > 1)
        merged = Counter(o for objs in r.mapping.by_slot.values() for o in objs)
        classes["objective merging several slots"] += sum(1 for n in merged.values() if n > 1)
    return +classes


def failure_report(result: VariantResult) -> str:
    lines = [f"  {count:>5}  {name}" for name, count in failure_classes(result).most_common()]
    for r in result.services:
        if r.failure is not None:
            lines.append(f"  {r.service}: {r.failure}: {r.compiled.error}")
        elif r.mapping is not None and (r.mapping.unmapped or r.mapping.extra):
            assert r.compiled.spec is not None
            names = {o.id: o.criterion.params.get("intent_phrases") for o in r.compiled.spec.ordered()}
            if r.mapping.unmapped:
                lines.append(f"  {r.service}: unmapped {', '.join(r.mapping.unmapped)}")
            if r.mapping.extra:
                lines.append(f"  {r.service}: extra " + ", ".join(f"{o} {names[o]}" for o in r.mapping.extra))
    return "\n".join(lines) if lines else "  none"


def _row(rows: dict[str, Any], conversation: str, index: int) -> Any:
    turns = rows.get(conversation)
    return turns[index] if turns is not None and index < len(turns) else None


def _service_json(r: ServiceResult, with_turns: bool) -> dict[str, Any]:
    spec = r.compiled.spec
    body: dict[str, Any] = {
        "main_intent": r.choice.intent, "slot_rule": r.choice.rule, "slots": list(r.choice.names),
        "intent": r.intent.text, "locale_flags": list(r.compiled.flags), "failure": r.failure,
        "compile_error": None if r.compiled.error_code is None else
        {"code": r.compiled.error_code, "message": r.compiled.error},
        "compile_output": r.compiled.output,
        "objectives": [] if spec is None else [
            {"id": o.id, "kind": o.criterion.kind.value,
             "intent_phrases": o.criterion.params.get("intent_phrases", [])} for o in spec.ordered()],
        "mapping": None if r.mapping is None else {"by_slot": {s: list(o) for s, o in r.mapping.by_slot.items()},
                                                   "unmapped": list(r.mapping.unmapped),
                                                   "extra": list(r.mapping.extra)},
        "dialogues": len(r.outcomes), "turns": r.turns, "seconds": round(r.seconds, 3),
        "metrics": r.metrics().as_dict(),
        "coordinates": {c: {"kind": r.kind_of(c), **m.as_dict()} for c, m in r.per_coordinate().items()},
    }
    if with_turns:
        rows = {run.id: run.turns for run in r.runs}
        body["conversations"] = [{"id": o.id, "turns": [
            {"turn": t.turn, "state": t.recorded, "reference": t.reference,
             **({"visitor": row.visitor, "question": row.question} if (row := _row(rows, o.id, i)) else {})}
            for i, t in enumerate(o.turns)]} for o in r.outcomes]
    return body


def results_json(results: Sequence[VariantResult], *, sgd: str, splits: Sequence[str], limit: int | None,
                 proposer: str, with_turns: bool) -> dict[str, Any]:
    return {
        "benchmark": "onboarding", "sgd": sgd, "splits": list(splits), "limit_per_service": limit,
        "proposer": proposer,
        "variants": {str(r.variant): {
            "pooled": r.pooled().as_dict(), "compile_failures": len(r.compile_failures),
            "unmapped_slots": r.unmapped, "extra_objectives": r.extra,
            "failure_classes": dict(failure_classes(r)),
            "services": {s.service: _service_json(s, with_turns) for s in r.services}} for r in results},
    }
