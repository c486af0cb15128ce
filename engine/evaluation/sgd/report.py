"""Text tables and the JSON results of an SGD benchmark run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.evaluation.metrics import Metrics
from engine.evaluation.sgd.bench import SYSTEMS, BenchResult, ServiceResult
from engine.evaluation.sgd.misses import FailureKind
from engine.evaluation.sgd.scoring import coordinate_metrics

TOP_KINDS = 10
_METRICS = ("STA", "TSA", "EP", "ER", "MC")


def _cell(metrics: Metrics, name: str) -> str:
    ratio = dict(metrics.items())[name]
    return f"{100 * ratio.value:5.1f} {ratio.hits:>4}/{ratio.total:<4}"


def _block(label: str, info: str, systems: Mapping[str, Metrics], first_col: int) -> list[str]:
    lines = []
    for k, system in enumerate(SYSTEMS):
        head = f"{label:<{first_col}} {info:<14}" if k == 0 else " " * (first_col + 15)
        lines.append(f"{head} {system:<8} " + " ".join(f"{_cell(systems[system], m):<16}" for m in _METRICS))
    return lines


def _header(first: str, first_col: int, info: str, bit_level: bool) -> str:
    names = ("bit", "final", "EP", "ER", "MC") if bit_level else _METRICS
    return f"{first:<{first_col}} {info:<14} {'system':<8} " + " ".join(f"{n:<16}" for n in names)


def service_table(result: BenchResult) -> str:
    lines = [_header("service", 14, "dialogues/turns", bit_level=False)]
    for r in result.services:
        lines += _block(r.service, f"{len(r.runs)}/{r.turns}", r.metrics, 14)
    lines += _block("ALL", f"{sum(len(r.runs) for r in result.services)}/{result.turns}", result.combined(), 14)
    return "\n".join(lines)


def kind_table(kinds: Mapping[str, Mapping[str, Metrics]], title: str) -> str:
    """Per criterion kind, each objective's bit scored alone: 'bit' = bit accuracy per turn, 'final' = final bit."""
    lines = [_header(title, 14, "", bit_level=True)]
    for kind in sorted(kinds["grace"]):
        lines += _block(kind, "", {s: kinds[s][kind] for s in SYSTEMS}, 14)
    return "\n".join(lines)


def objective_table(result: BenchResult) -> str:
    """GRACE per objective of every service (bit accuracy, final bit, EP, ER): where each service loses."""
    lines = [f"{'service':<14} {'objective':<18} {'kind':<12} " + " ".join(f"{n:<16}" for n in
                                                                        ("bit", "final", "EP", "ER"))]
    for r in result.services:
        outcomes = [run.outcome() for run in r.runs]
        for config in r.dataset.configs.values():
            for index, objective in enumerate(config.objectives):
                metrics = coordinate_metrics(outcomes, index)
                lines.append(f"{r.service:<14} {objective.id:<18} {getattr(objective, 'kind', ''):<12} "
                             + " ".join(f"{_cell(metrics, m):<16}" for m in ("STA", "TSA", "EP", "ER")))
    return "\n".join(lines)


def _failure_lines(kinds: tuple[FailureKind, ...], limit: int) -> list[str]:
    lines = []
    for group in kinds[:limit]:
        lines.append(f"  {group.count:>4}  {group.objective} <- {group.slots}: {group.reason}")
        for sample in group.samples[:2]:
            informed = "; ".join(f"{k}={'|'.join(v)}" for k, v in sample["informed"].items())
            late = f" (recorded t{sample['recorded_turn']})" if sample.get("recorded_turn") else ""
            lines.append(f"          {sample['conversation']} t{sample['turn']}: {sample['visitor']!r}"
                         + (f"  [{informed}]" if informed else "") + late)
    return lines


def failure_report(result: BenchResult, limit: int = TOP_KINDS) -> str:
    lines = []
    for r in result.services:
        lines.append(f"{r.service}: {sum(g.count for g in r.misses)} missed, "
                     f"{sum(g.count for g in r.unsupported)} unsupported completions")
        lines.append(" missed evidence (most common kinds):")
        lines += _failure_lines(r.misses, limit)
        if r.unsupported:
            lines.append(" unsupported completions:")
            lines += _failure_lines(r.unsupported, 5)
    return "\n".join(lines)


def split_table(result: BenchResult) -> str:
    """GRACE per split (the dev figure beside the train one)."""
    lines = [f"{'split':<14} {'dialogues':<14} {'system':<8} " + " ".join(f"{n:<16}" for n in _METRICS)]
    runs = [run for r in result.services for run in r.runs]
    for split, metrics in result.by_split().items():
        count = len(runs) if len(result.splits) == 1 else sum(run.id.startswith(f"{split}-") for run in runs)
        lines.append(f"{split:<14} {count:<14} {'grace':<8} " + " ".join(f"{_cell(metrics, m):<16}" for m in _METRICS))
    return "\n".join(lines)


def _causes(result: BenchResult) -> dict[str, tuple[int, int]]:
    """cause -> (missed bits, unsupported completions) over every service."""
    causes: dict[str, list[int]] = {}
    for r in result.services:
        for column, groups in ((0, r.misses), (1, r.unsupported)):
            for group in groups:
                causes.setdefault(group.reason, [0, 0])[column] += group.count
    return {k: (v[0], v[1]) for k, v in sorted(causes.items(), key=lambda kv: (-sum(kv[1]), kv[0]))}


def cause_table(result: BenchResult) -> str:
    lines = [f"{'cause':<60} {'missed':>7} {'unsupported':>12}"]
    lines += [f"{cause[:60]:<60} {missed:>7} {unsupported:>12}" for cause, (missed, unsupported)
              in _causes(result).items()]
    return "\n".join(lines)


def spread(items: Sequence[Any], n: int) -> list[Any]:
    """n items evenly spaced over the list: samples from every service, not only the first one's."""
    if n <= 0 or not items:
        return []
    if n >= len(items):
        return list(items)
    return [items[k * len(items) // n] for k in range(n)]


def class_table(result: BenchResult, samples: int = 2) -> str:
    """Every failure class of the stable list, in its order, with its count (zero included) and samples."""
    lines = [f"{'failure class':<34} {'on':<12} {'count':>6}  description"]
    for (on, cls), tally in result.combined_classes().items():
        lines.append(f"{cls:<34} {on:<12} {tally.count:>6}  {result.book.descriptions[(on, cls)]}")
        for sample in spread(tally.samples, samples):
            values = "|".join(sample.get("values", []))
            lines.append(f"{'':<48} {sample['conversation']} t{sample['turn']} {sample['objective']}: "
                         f"{sample['visitor'][:110]!r}" + (f" [{values}]" if values else ""))
    return "\n".join(lines)


def speed_line(result: BenchResult) -> str:
    rate = result.turns / result.seconds if result.seconds > 0 else 0.0
    return f"{result.turns} turns in {result.seconds:.1f} s of turn runtime: {rate:.0f} turns/s"


def _metrics_json(systems: Mapping[str, Metrics]) -> dict[str, dict[str, str]]:
    return {s: m.as_dict() for s, m in systems.items()}


def _service_json(r: ServiceResult) -> dict[str, Any]:
    outcomes = [run.outcome() for run in r.runs]
    return {
        "dialogues": len(r.runs), "turns": r.turns, "seconds": round(r.seconds, 3),
        "turns_per_second": round(r.turns_per_second, 1),
        "objectives": [{"id": o.id, "kind": getattr(o, "kind", None), "slots": getattr(o, "slots", []),
                        "grace": coordinate_metrics(outcomes, index).as_dict()}
                       for cfg in r.dataset.configs.values() for index, o in enumerate(cfg.objectives)],
        "metrics": _metrics_json(r.metrics),
        "kinds": {s: _metrics_json(r.kinds[s]) for s in SYSTEMS},
        "missed": [g.as_dict() for g in r.misses],
        "unsupported": [g.as_dict() for g in r.unsupported],
        "failure_classes": {f"{on}:{cls}": t.count for (on, cls), t in r.classes.items()},
        "conversations": [
            {"id": run.id, "turns": [{"turn": t.turn, "visitor": t.visitor, "state": t.state,
                                      "reference": t.reference, "action": t.action, "rejected": list(t.rejected)}
                                     for t in run.turns]}
            for run in r.runs
        ],
    }


def results_json(result: BenchResult) -> dict[str, Any]:
    return {
        "benchmark": "sgd-" + "+".join(result.splits),
        "splits": {split: m.as_dict() for split, m in result.by_split().items()},
        "failure_classes": [t.as_dict() for t in result.combined_classes().values()],
        "sgd": str(result.sgd_dir),
        "limit_per_service": result.limit,
        "proposer": result.proposer,
        "turns": result.turns,
        "seconds": round(result.seconds, 3),
        "combined": _metrics_json(result.combined()),
        "kinds": {s: _metrics_json(k) for s, k in result.combined_kinds().items()},
        "services": {r.service: _service_json(r) for r in result.services},
    }
