"""Offline baseline and an LLM proposer side by side: the paper's metrics, and what the LLM path cost and did.

Beside STA/TSA/MC/EP/ER, per system: turns whose proposer fell back to the offline one (and every other role's
fallbacks), turns that failed closed, rejected candidates by reason code, whole-turn latency p50/p99, model-call
latency, tokens per turn and prompt tokens per role; then the guarantees a weak model must not break.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.evaluation.metrics import Metrics, compute_metrics
from engine.evaluation.runner import ConversationRun, TurnRow

# note prefix (as the runtime and the LLM roles write it) -> role that fell back
FALLBACK_NOTES = {
    "proposer.fallback_offline": "propose",
    "rubric.fallback_offline": "rate_utility",
    "modulation.fallback_canonical": "modulate",
    "synthesis.fallback_extractive": "synthesize",
}


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(math.ceil(q / 100 * len(ordered)), 1)
    return ordered[rank - 1]


def _fallbacks(row: TurnRow) -> dict[str, str]:
    """role -> the code of the first reason its fallback was taken in this turn (notes read "<prefix>: <code> …")."""
    found: dict[str, str] = {}
    for note in row.notes:
        prefix, _, reason = note.partition(":")
        role = FALLBACK_NOTES.get(prefix.strip())
        if role is not None and role not in found:
            found[role] = (reason.split() or ["unspecified"])[0]
    return found


@dataclass(frozen=True)
class SystemSummary:
    label: str
    metrics: Metrics
    turns: int
    fell_back: dict[str, Counter[str]]  # role -> reasons (one per turn)
    fail_closed: Counter[str]
    rejected: Counter[str]
    turn_ms: tuple[float, ...]
    call_ms: tuple[float, ...]
    calls: int
    failed_calls: Counter[str]
    output_tokens: tuple[int, ...]  # per turn, all calls
    input_tokens: tuple[int, ...]  # per turn, all calls
    prompt_tokens: dict[str, tuple[int, ...]]  # role -> prompt tokens of each call
    violations: tuple[str, ...] = field(default_factory=tuple)

    def fallback_turns(self, role: str) -> int:
        return sum(self.fell_back.get(role, Counter()).values())

    def as_dict(self) -> dict[str, Any]:
        def stats(values: Sequence[float]) -> dict[str, float | None]:
            return {"p50": percentile(values, 50), "p99": percentile(values, 99),
                    "mean": round(sum(values) / len(values), 1) if values else None}

        return {
            "label": self.label,
            "metrics": self.metrics.as_dict(),
            "turns": self.turns,
            "fell_back": {role: dict(c) for role, c in self.fell_back.items()},
            "fail_closed": dict(self.fail_closed),
            "rejected": dict(self.rejected),
            "turn_ms": stats(self.turn_ms),
            "llm_call_ms": stats(self.call_ms),
            "llm_calls": self.calls,
            "llm_failed_calls": dict(self.failed_calls),
            "output_tokens_per_turn": stats(self.output_tokens),
            "input_tokens_per_turn": stats(self.input_tokens),
            "prompt_tokens_per_role": {role: {**stats(v), "max": max(v) if v else None}
                                       for role, v in sorted(self.prompt_tokens.items())},
            "violations": list(self.violations),
        }


def summarize(label: str, runs: Sequence[ConversationRun]) -> SystemSummary:
    fell_back: dict[str, Counter[str]] = defaultdict(Counter)
    fail_closed: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    failed_calls: Counter[str] = Counter()
    prompt: dict[str, list[int]] = defaultdict(list)
    turn_ms: list[float] = []
    call_ms: list[float] = []
    out_tokens: list[int] = []
    in_tokens: list[int] = []
    violations: list[str] = []
    calls = 0
    rows = [(run, row) for run in runs for row in run.turns]
    for run, row in rows:
        for role, reason in _fallbacks(row).items():
            fell_back[role][reason] += 1
        if row.fail_closed:
            fail_closed[row.fail_closed] += 1
        rejected.update(row.reason_codes)
        turn_ms.append(row.latency_ms)
        violations.extend(f"{run.id} {v}" for v in row.violations)
        turn_out = turn_in = 0
        for call in row.llm_calls:
            if call.get("status") == "replayed":
                continue
            calls += 1
            if call.get("status") not in (None, "ok"):
                failed_calls[str(call.get("status"))] += 1
            latency = call.get("latency_ms")
            if isinstance(latency, int | float):
                call_ms.append(float(latency))
            out, inp = call.get("output_tokens"), call.get("input_tokens")
            turn_out += out if isinstance(out, int) else 0
            if isinstance(inp, int):
                turn_in += inp
                prompt[str(call.get("purpose"))].append(inp)
        if row.llm_calls:
            out_tokens.append(turn_out)
            in_tokens.append(turn_in)
    return SystemSummary(
        label=label, metrics=compute_metrics([r.outcome() for r in runs]), turns=len(rows),
        fell_back=dict(fell_back), fail_closed=fail_closed, rejected=rejected, turn_ms=tuple(turn_ms),
        call_ms=tuple(call_ms), calls=calls, failed_calls=failed_calls, output_tokens=tuple(out_tokens),
        input_tokens=tuple(in_tokens), prompt_tokens={k: tuple(v) for k, v in prompt.items()},
        violations=tuple(violations),
    )


# -- the printed table ---------------------------------------------------------------------------------------

def _counts(counter: Counter[str], limit: int = 4) -> str:
    total = sum(counter.values())
    if not total:
        return "0"
    top = ", ".join(f"{code} {n}" for code, n in counter.most_common(limit))
    more = "" if len(counter) <= limit else ", …"
    return f"{total} ({top}{more})"


def _ms(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return f"{percentile(values, 50):.0f} / {percentile(values, 99):.0f}"


def _mean(values: Sequence[int]) -> str:
    return f"{sum(values) / len(values):.0f}" if values else "-"


def _rows(summary: SystemSummary) -> list[tuple[str, str]]:
    rows = [(name, str(ratio)) for name, ratio in summary.metrics.items()]
    rows.append(("turns", str(summary.turns)))
    for role in ("propose", "rate_utility", "modulate", "synthesize"):
        rows.append((f"{role} fell back (turns)", _counts(summary.fell_back.get(role, Counter()), 2)))
    rows += [
        ("failed closed (turns)", _counts(summary.fail_closed, 2)),
        ("rejected candidates", _counts(summary.rejected, 3)),
        ("turn latency p50/p99 ms", _ms(summary.turn_ms)),
        ("LLM calls (failed)", f"{summary.calls} ({sum(summary.failed_calls.values())})"),
        ("LLM call p50/p99 ms", _ms(summary.call_ms)),
        ("output tokens / turn", _mean(summary.output_tokens)),
        ("prompt tokens / turn", _mean(summary.input_tokens)),
    ]
    for role, values in sorted(summary.prompt_tokens.items()):
        rows.append((f"prompt tokens {role} (mean/max)", f"{_mean(values)} / {max(values)}"))
    return rows


def comparison_table(summaries: Sequence[SystemSummary]) -> str:
    columns = [dict(_rows(s)) for s in summaries]
    names: list[str] = []
    for s in summaries:
        names += [name for name, _ in _rows(s) if name not in names]
    width = max(len(n) for n in names) + 2
    cells = [max([len(s.label), *(len(c.get(n, "-")) for n in names)]) + 2 for s, c in zip(summaries, columns,
                                                                                        strict=True)]
    lines = ["".ljust(width) + "".join(s.label.ljust(w) for s, w in zip(summaries, cells, strict=True))]
    for name in names:
        lines.append(name.ljust(width) + "".join(c.get(name, "-").ljust(w) for c, w in zip(columns, cells,
                                                                                             strict=True)))
    return "\n".join(line.rstrip() for line in lines)


@dataclass(frozen=True)
class Guarantee:
    name: str
    held: bool
    detail: str


def guarantees(baseline: SystemSummary, llm: SystemSummary) -> list[Guarantee]:
    mc = llm.metrics.mc
    witness = [v for v in llm.violations if "without" in v or "went from" in v]
    codes = [v for v in llm.violations if "reason code" in v]
    return [
        Guarantee("monotonic consistency 100%", mc.hits == mc.total, str(mc)),
        Guarantee("no completion without an accepted visitor span", not witness,
                  f"{len(witness)} violation(s)" + (f": {witness[0]}" if witness else "")),
        Guarantee("evidence precision not below offline", llm.metrics.ep.value >= baseline.metrics.ep.value,
                  f"{llm.metrics.ep} vs offline {baseline.metrics.ep}"),
        Guarantee("every rejected candidate has its reason code", not codes,
                  f"{sum(llm.rejected.values())} rejected, {len(codes)} without a code"),
    ]


def guarantees_text(items: Iterable[Guarantee]) -> str:
    return "\n".join(f"  [{'held' if g.held else 'BROKEN'}] {g.name}: {g.detail}" for g in items)


def comparison_json(summaries: Sequence[SystemSummary], checks: Sequence[Guarantee]) -> dict[str, Any]:
    return {"systems": [s.as_dict() for s in summaries],
            "guarantees": [{"name": g.name, "held": g.held, "detail": g.detail} for g in checks]}


def by_label(summaries: Sequence[SystemSummary]) -> Mapping[str, SystemSummary]:
    return {s.label: s for s in summaries}
