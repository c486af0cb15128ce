"""Rebuild the learned answer scorer (llm_adapters/offline/models/answer_scorer.json) from the SGD train split.

    .venv/bin/python -m benchmarks.fit_answer_scorer --sgd /work/shared/data/sgd --write     # the shipped model
    .venv/bin/python -m benchmarks.fit_answer_scorer --sgd /work/shared/data/sgd \\
        --services Restaurants_1 --limit-per-service 5 --out /tmp/slice.json                  # a small slice

Data: the single-service dialogues of the SGD **train** split (Schema-Guided Dialogue, Google Research,
CC BY-SA 4.0), read from ``--sgd`` and never copied into the project; the dev split is left for measuring.
Every train dialogue of every benchmarked service (the first ``--limit-per-service`` per service) runs through the
full turn runtime with the offline proposer of the rule bundle, as ``grace bench sgd`` does; every candidate the
rules choose for an open objective of the scored kinds that the decision layer accepts gives one row: its features
(llm_adapters/offline/answer_scorer.py) and whether completing the objective there is right: the benchmark's
reference bit at that turn (the visitor INFORMed one of its slots in this turn or an earlier one). A logistic
regression (L2 penalty, full-batch gradient descent in numpy, a fixed number of steps from zeros: deterministic) is
fitted on the rows; weights are rounded to 6 decimals so the file's hash does not depend on the last bits of a BLAS.

The threshold and kinds to suggest for rules/learned.json come from two-fold cross-fitting over dialogues: per
kind, the vetoes below a threshold that would drop wrong completions minus those that would drop right ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog

from engine.evaluation.runner import ConversationRun, run_dataset
from engine.evaluation.sgd.bench import prepare
from engine.evaluation.sgd.cli import DEFAULT_SGD_DIR
from engine.evaluation.sgd.convert import convert_service
from engine.evaluation.sgd.mapping import DEFAULT_BENCH_DIR
from engine.evaluation.targets import candidate_targets, working_tree_bundle
from engine.kernel.conversation import Role
from engine.kernel.goal_models import Objective
from engine.kernel.ports import ProposerInput
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.text import fold
from llm_adapters.offline import OfflineProposer
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.answer_scorer import (
    DENSE,
    HASH_BITS,
    MODEL_PATH,
    AnswerJudge,
    CandidateFeatures,
    ScorerSettings,
    candidate_features,
    feature_matrix,
    weights_digest,
)
from llm_adapters.offline.evidence import Evidence

SPLIT = "train"
SCORED_KINDS = ("free_text", "enumeration", "features", "place", "datetime", "quantity")
_STEPS, _RATE, _L2 = 300, 2.0, 1e-3
_DECIMALS = 6
Key = tuple[str, int, str, str]  # spec id, visitor turn number, folded previous and current visitor message


def _key(spec_id: str, texts: Sequence[str]) -> Key:
    return spec_id, len(texts), fold(texts[-2]) if len(texts) > 1 else "", fold(texts[-1])


@dataclass
class Row:
    key: Key
    objective: str
    kind: str
    features: CandidateFeatures


class _Recorder(AnswerJudge):
    """Keeps every candidate (the rules' run is unchanged) and records its features."""

    def __init__(self, kinds: Sequence[str]) -> None:
        super().__init__(ScorerSettings(False, dict.fromkeys(kinds, 0.0)))  # no model: it records, never vetoes
        self.rows: list[Row] = []

    def applies(self, objective: Objective) -> bool:
        return objective.criterion.kind.value in self.settings.kinds

    def keep(self, request: ProposerInput, analysis: Analysis, objective: Objective, evidence: Evidence,
             others_taken: int) -> bool:
        if self.applies(objective):
            texts = [m.text for m in request.history if m.role is Role.VISITOR] + [request.message.text]
            self.rows.append(Row(_key(request.spec.spec.id, texts), objective.id, objective.criterion.kind.value,
                                 candidate_features(request, analysis, objective, evidence, others_taken)))
        return True


def collect(sgd: Path, services: Sequence[str] | None, limit: int | None, rules: Path, draft: bool,
            kinds: Sequence[str], jobs: int = 1) -> tuple[list[Row], npt.NDArray[np.float64], list[str]]:
    """(rows, labels, dialogue id per row) from the train split, in service order whatever ``jobs`` is."""
    names = [b.service.service_name for b in prepare(sgd, DEFAULT_BENCH_DIR, services, [SPLIT]).benches]
    chunks = [names[i::jobs] for i in range(jobs)] if jobs > 1 else [names]
    if len(chunks) > 1:
        with ProcessPoolExecutor(max_workers=len(chunks)) as pool:
            parts = list(pool.map(_collect_services, *zip(*[(sgd, c, limit, rules, draft, kinds) for c in chunks],
                                                         strict=True)))
    else:
        parts = [_collect_services(sgd, names, limit, rules, draft, kinds)]
    by_service = {name: part[name] for part in parts for name in part}
    rows = [row for name in names for row in by_service[name][0]]
    labels = [label for name in names for label in by_service[name][1]]
    dialogues = [d for name in names for d in by_service[name][2]]
    return rows, np.array(labels, dtype=np.float64), dialogues


def _collect_services(sgd: Path, services: Sequence[str], limit: int | None, rules: Path, draft: bool,
                      kinds: Sequence[str]) -> dict[str, tuple[list[Row], list[float], list[str]]]:
    """Per service: its rows, their labels and dialogue ids (one process runs a chunk of services)."""
    prepared = prepare(sgd, DEFAULT_BENCH_DIR, services, [SPLIT])
    bundle = working_tree_bundle(rules) if draft else load_bundle(rules)
    recorder = _Recorder(kinds)
    proposer = OfflineProposer.from_bundle(bundle, judge=recorder)
    out: dict[str, tuple[list[Row], list[float], list[str]]] = {}
    for bench in prepared.benches:
        name = bench.service.service_name
        labels: dict[tuple[Key, str], bool] = {}
        dialogue_of: dict[Key, str] = {}
        dataset = convert_service(prepared.corpus.single_service(name), bench, limit)
        targets = candidate_targets([bench.spec_path], bundle, with_answerer=False)
        for conversation in dataset.conversations:
            texts: list[str] = []
            for turn in conversation.turns:
                texts.append(turn.visitor)
                key = _key(bench.spec.id, texts)
                dialogue_of.setdefault(key, conversation.id)
                # completing is right iff the reference bit is 1 at this turn (the visitor INFORMed it by now)
                reference = turn.reference or "0" * len(bench.slots)
                for objective_id, bit in zip(bench.slots, reference, strict=True):
                    labels[(key, objective_id)] = labels.get((key, objective_id), False) or bit == "1"
        recorder.rows = []
        runs = run_dataset(dataset, targets, bundle=bundle, proposer=proposer, demo=bench.spec.id,
                           now=prepared.corpus.reference_time)
        completed = _completed(runs, dataset.conversations, bench.spec.id, list(bench.slots))
        # only the candidates the decision layer accepted: a veto of one it rejects anyway changes nothing
        matched = [r for r in recorder.rows if (r.key, r.objective) in labels and (r.key, r.objective) in completed]
        out[name] = (matched, [1.0 if labels[(r.key, r.objective)] else 0.0 for r in matched],
                     [dialogue_of[r.key] for r in matched])
        print(f"{name}: {len(dataset.conversations)} dialogues, {len(recorder.rows)} candidates, "
              f"{len(matched)} completed", file=sys.stderr)
    return out


def _completed(runs: Sequence[ConversationRun], conversations: Sequence[Any], spec_id: str,
               objectives: Sequence[str]) -> set[tuple[Key, str]]:
    """(turn key, objective) of every objective the run completed at that turn."""
    by_id = {c.id: c for c in conversations}
    done: set[tuple[Key, str]] = set()
    for run in runs:
        texts: list[str] = []
        before = run.initial
        for row, turn in zip(run.turns, by_id[run.id].turns, strict=True):
            texts.append(turn.visitor)
            done |= {(_key(spec_id, texts), o) for i, o in enumerate(objectives)
                     if row.state[i] == "1" and before[i] == "0"}
            before = row.state
    return done


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """L2-penalised logistic regression by full-batch gradient descent from zeros (deterministic)."""
    w = np.zeros(x.shape[1])
    if len(y) == 0:
        return w
    penalty = np.full(x.shape[1], _L2)
    penalty[0] = 0.0  # the bias is not shrunk
    for _ in range(_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))
        w -= _RATE * (x.T @ (p - y) / len(y) + penalty * w)
    rounded: npt.NDArray[np.float64] = np.round(w, _DECIMALS)
    return rounded


def _predict(x: npt.NDArray[np.float64], w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))
    return out


def cross_fitted(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
                 dialogues: Sequence[str]) -> npt.NDArray[np.float64]:
    """Each row's probability from a model fitted on the other half of the dialogues."""
    fold_of = np.array([int(hashlib.sha256(d.encode()).hexdigest(), 16) % 2 for d in dialogues])
    out = np.zeros(len(y))
    for k in (0, 1):
        train, test = fold_of != k, fold_of == k
        out[test] = _predict(x[test], fit(x[train], y[train]))
    return out


def suggest(rows: Sequence[Row], y: npt.NDArray[np.float64], p: npt.NDArray[np.float64]) -> dict[str, Any]:
    """Per kind and threshold: wrong completions vetoed minus right ones vetoed (out of fold)."""
    kinds = np.array([r.kind for r in rows])
    table: dict[str, Any] = {}
    for kind in sorted(set(kinds.tolist())):
        mask = kinds == kind
        best = (0, 0.0)
        per: dict[str, int] = {}
        for threshold in np.round(np.arange(0.05, 0.96, 0.05), 2):
            vetoed = mask & (p < threshold)
            net = int(np.sum(vetoed & (y == 0)) - np.sum(vetoed & (y == 1)))
            per[f"{threshold:.2f}"] = net
            if net > best[0]:
                best = (net, float(threshold))
        table[kind] = {"rows": int(mask.sum()), "positives": int(y[mask].sum()), "net_by_threshold": per,
                       "best": {"net": best[0], "threshold": best[1]}}
    return table


def model_json(w: npt.NDArray[np.float64], rows: int, positives: int, services: int, limit: int | None,
               kinds: Sequence[str]) -> dict[str, Any]:
    weights = [float(v) for v in w]
    return {
        "id": "answer_scorer",
        "description": ("Logistic regression: does this visitor message answer this objective with the rules' "
                        "candidate? Features in llm_adapters/offline/answer_scorer.py. Rebuilt by "
                        "benchmarks/fit_answer_scorer.py."),
        "training": {
            "data": "Schema-Guided Dialogue (SGD), train split, single-service dialogues of the benchmarked services",
            "licence": "CC BY-SA 4.0 (Google Research, dstc8-schema-guided-dialogue)",
            "services": services, "limit_per_service": limit, "kinds": list(kinds), "rows": rows,
            "positives": positives, "steps": _STEPS, "rate": _RATE, "l2": _L2,
        },
        "dense": list(DENSE),
        "hash_bits": HASH_BITS,
        "weights_sha256": weights_digest(weights),
        "weights": weights,
    }


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def build(sgd: Path, services: Sequence[str] | None, limit: int | None, rules: Path = DEFAULT_RULES_DIR,
          draft: bool = False, kinds: Sequence[str] = SCORED_KINDS,
          cross: bool = True, jobs: int = 1) -> tuple[str, dict[str, Any] | None]:
    """(the model file's text, the threshold table or None)."""
    rows, y, dialogues = collect(sgd, services, limit, rules, draft, kinds, jobs)
    x = feature_matrix(r.features for r in rows)
    table = suggest(rows, y, cross_fitted(x, y, dialogues)) if cross and len(rows) else None
    w = fit(x, y)
    count = len(services) if services else len({r.key[0] for r in rows})
    return dump(model_json(w, len(rows), int(y.sum()), count, limit, kinds)), table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sgd", type=Path, default=DEFAULT_SGD_DIR)
    parser.add_argument("--services", default="", help="comma-separated services (default: every benchmarked one)")
    parser.add_argument("--limit-per-service", type=int, default=0, help="first N train dialogues (0 = all)")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    parser.add_argument("--unpublished-rules", action="store_true")
    parser.add_argument("--jobs", type=int, default=1, help="processes, each running a share of the services")
    parser.add_argument("--no-cross", action="store_true", help="skip the cross-fitted threshold table")
    parser.add_argument("--out", type=Path, help="write the model here")
    parser.add_argument("--write", action="store_true", help=f"write the model to {MODEL_PATH}")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    services = [s.strip() for s in args.services.split(",") if s.strip()] or None
    text, table = build(args.sgd, services, args.limit_per_service or None, args.rules, args.unpublished_rules,
                        cross=not args.no_cross, jobs=max(1, args.jobs))
    if table is not None:
        print(json.dumps(table, indent=1))
    data = json.loads(text)
    print(f"rows {data['training']['rows']} positives {data['training']['positives']} "
          f"weights_sha256 {data['weights_sha256']} file_sha256 {hashlib.sha256(text.encode()).hexdigest()}")
    for path in [p for p in (args.out, MODEL_PATH if args.write else None) if p is not None]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
