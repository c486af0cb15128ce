"""Human-readable evaluation output: metrics per config beside the paper's, and a per-turn diff of mismatches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.evaluation.metrics import Metrics, Ratio, compute_metrics
from engine.evaluation.runner import ConversationRun

COMBINED = "combined"


def metrics_by_config(runs: Sequence[ConversationRun]) -> dict[str, Metrics]:
    configs = sorted({r.config for r in runs})
    result = {c: compute_metrics([r.outcome() for r in runs if r.config == c]) for c in configs}
    result[COMBINED] = compute_metrics([r.outcome() for r in runs])
    return result


def _paper(paper: Mapping[str, Mapping[str, str]] | None, config: str, metric: str) -> str:
    if not paper or metric not in paper.get(config, {}):
        return "-"
    return str(Ratio.parse(paper[config][metric]))


def metrics_table(metrics: Mapping[str, Metrics], paper: Mapping[str, Mapping[str, str]] | None) -> str:
    lines = []
    for config, values in metrics.items():
        lines.append(f"{config}")
        lines.append(f"  {'metric':<6} {'GRACE (this run)':<22} {'paper':<22}")
        for name, ratio in values.items():
            lines.append(f"  {name:<6} {ratio!s:<22} {_paper(paper, config, name):<22}")
    return "\n".join(lines)


def _coordinates(recorded: str, reference: str, names: Sequence[str]) -> str:
    parts = []
    for index, (got, want) in enumerate(zip(recorded, reference, strict=True)):
        if got != want:
            label = names[index] if index < len(names) else str(index)
            parts.append(f"{label} {'missing' if want == '1' else 'unsupported'}")
    return ", ".join(parts)


def mismatch_diff(runs: Sequence[ConversationRun], objective_names: Mapping[str, Sequence[str]]) -> str:
    lines = []
    for run in runs:
        for row in run.turns:
            if not row.scored or row.reference is None or row.state == row.reference:
                continue
            names = objective_names.get(run.config, ())
            lines.append(f"{run.id} t{row.turn}: recorded {row.state} reference {row.reference} "
                         f"({_coordinates(row.state, row.reference, names)})")
            lines.append(f"    visitor: {row.visitor}")
            if row.rejected:
                lines.append(f"    rejected: {'; '.join(row.rejected)}")
    return "\n".join(lines) if lines else "no mismatching turns"


def results_json(dataset_name: str, runs: Sequence[ConversationRun], metrics: Mapping[str, Metrics],
                 paper: Mapping[str, Mapping[str, str]] | None) -> dict[str, Any]:
    return {
        "dataset": dataset_name,
        "conversations": [
            {
                "id": run.id,
                "config": run.config,
                "demo": run.demo,
                "turns": [
                    {"turn": t.turn, "state": t.state, "action": t.action, "question": t.question,
                     "reference": t.reference, "scored": t.scored, "fail_closed": t.fail_closed}
                    for t in run.turns
                ],
            }
            for run in runs
        ],
        "metrics": {config: m.as_dict() for config, m in metrics.items()},
        "paper_results": dict(paper) if paper else None,
    }
