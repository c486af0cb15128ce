"""Score the labelled natural-language query sets (benchmarks/trace_sets/*.json) against the retriever.

Per query (k = 3): P@3 = returned records inside the acceptable set / returned (0 when nothing is returned for an
answerable query); R@3 = acceptable records returned / min(3, |gold|). Queries expecting ``no_match`` or
``clarify`` score 1 on both when the status is right and nothing is recommended, else 0. Constraint satisfaction =
recommendations inside the acceptable set; hallucination ('halluc') = recommendations that are not the directory's
record (name or verbatim evidence) or fall outside the acceptable set. It is split: 'invent' = not the directory's
record or a quote (main or per constraint) not verbatim in its source (must be 0); 'offgold' = the directory's real
record with verbatim quotes outside the acceptable list; with the set's own evaluator ('viol', 'policy' of the
judged ones) an off-gold record fails a gold constraint taken alone, or only the set's standing policy (a benefits
office is no food site); the rest fail only the constraints' combination. Follow-ups (``turns``) run as one
conversation: each turn gets the previous turn's parsed query; the last turn is scored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.directory.metrics import source_texts
from engine.directory.errors import DirectoryUsageError
from engine.directory.retriever import Answer, Result, TraceRetriever
from engine.progress import progress


@dataclass
class SetTotals:
    n: int = 0
    precision: float = 0.0
    recall: float = 0.0
    recs: int = 0
    satisfied: int = 0
    hallucinated: int = 0  # invented + off_gold (the historical 'halluc' column)
    invented: int = 0  # not the directory's record, or a quote (main or per constraint) not verbatim in its source
    off_gold: int = 0  # the directory's real record, verbatim quotes, but outside the query's acceptable list
    off_gold_violating: int = 0  # ... of which fail one of the query's gold constraints taken alone
    off_gold_policy: int = 0  # ... of which fail none of them but the set's own policy (a SNAP office is no food)
    off_gold_judged: int = 0  # off-gold recommendations a constraint judge could split (0: the set has none)
    expect_clarify: int = 0
    clarify_right: int = 0
    expect_no_match: int = 0
    no_match_right: int = 0
    refused: int = 0  # answerable queries answered with clarify / no-match
    answerable: int = 0
    status_right: int = 0  # the answer's status is the expected one (results / no_match / clarify)
    failures: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, float | int | str]:
        n = max(self.n, 1)
        return {
            "queries": self.n, "P@3": round(self.precision / n, 4), "R@3": round(self.recall / n, 4),
            "CSR": round(self.satisfied / self.recs, 4) if self.recs else 1.0,
            "hallucination": round(self.hallucinated / self.recs, 4) if self.recs else 0.0,
            "invented": self.invented, "off_gold": self.off_gold,
            "off_gold_violating": (f"{self.off_gold_violating}/{self.off_gold_judged}" if self.off_gold_judged
                                   else "-"),
            "off_gold_policy": f"{self.off_gold_policy}/{self.off_gold_judged}" if self.off_gold_judged else "-",
            "clarify_ok": f"{self.clarify_right}/{self.expect_clarify}",
            "no_match_ok": f"{self.no_match_right}/{self.expect_no_match}",
            "refused": f"{self.refused}/{self.answerable}",
            "status": round(self.status_right / n, 4),
        }


def load_set(path: Path) -> dict[str, Any]:
    try:
        payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DirectoryUsageError(f"cannot read query set {path}: {exc}", code="directory.usage_query_set") from exc
    if not isinstance(payload.get("queries"), list):
        raise DirectoryUsageError(f"{path}: no 'queries' list", code="directory.usage_query_set")
    return payload


def _takes_previous(retriever: TraceRetriever) -> bool:
    import inspect

    return "previous" in inspect.signature(retriever.answer).parameters


def ask(retriever: TraceRetriever, query: dict[str, Any], reference: datetime) -> Answer:
    turns = query.get("turns") or [query["text"]]
    answer: Answer | None = None
    for text in turns:
        previous = answer.parsed if answer is not None else None
        answer = (retriever.answer(text, reference, previous=previous) if _takes_previous(retriever)
                  else retriever.answer(text, reference))
    assert answer is not None
    return answer


Judge = Callable[[dict[str, Any]], set[int]]  # the set's own evaluator: a constraint dict -> its acceptable records


def _invented(retriever: TraceRetriever, texts: list[str], result: Result) -> bool:
    """Not the directory's record, or some quote it gives (the main one or any constraint's) is not verbatim in
    that record's source text: a claimed fact without a quote."""
    index = result.source_index
    record = retriever.directory.record(index)
    if record is None or record.name != result.name or not 0 <= index < len(texts):
        return True
    quotes = [result.evidence, *(ev.quote for _, ev in result.citations)]
    return any(quote not in texts[index] for quote in quotes)


def _violation(judge: Judge, constraints: dict[str, Any], index: int, cache: dict[str, set[int]]) -> str:
    """Why the set's own evaluator leaves a real record out: 'policy' when it is outside even the unconstrained
    acceptable list (the set's standing rules, e.g. a benefits office is no food site), 'constraint' when it fails one
    of the query's gold constraints taken alone, '' when it fails none alone (only their combination)."""
    parts: list[dict[str, Any]] = [{}, *({key: value} for key, value in constraints.items() if key != "candidates")]
    verdicts = []
    for part in parts:
        cache_key = json.dumps(part, sort_keys=True)
        if cache_key not in cache:
            cache[cache_key] = judge(part)
        verdicts.append(index in cache[cache_key])
    if not verdicts[0]:
        return "policy"
    return "constraint" if not all(verdicts[1:]) else ""


def score_set(retriever: TraceRetriever, payload: dict[str, Any], k: int = 3,
              judge: Judge | None = None) -> dict[str, SetTotals]:
    """Score every query. With ``judge`` (the set's own gold evaluator) the off-gold recommendations are split into
    those failing a gold constraint taken alone and those failing none (outside the gold only by the set's policy,
    e.g. a SNAP office for a food query, or by the combination)."""
    reference = datetime.fromisoformat(payload["reference"])
    judged: dict[str, set[int]] = {}
    texts = source_texts(retriever.directory)
    totals: dict[str, SetTotals] = {"all": SetTotals()}
    for query in progress(payload["queries"], "TRACE labelled set"):
        answer = ask(retriever, query, reference)
        returned = [(r.source_index, r.name, r.evidence) for r in answer.results[:k]]
        acceptable = set(query["acceptable"])
        gold = set(query["gold"])
        expect = query["expect"]
        good = 0
        real_bad = 0
        invented = off_gold = violating = policy = split = 0
        for result in answer.results[:k]:
            index = result.source_index
            fake = _invented(retriever, texts, result)
            ok = index in acceptable
            good += ok
            real_bad += fake or (not ok)
            invented += fake
            if not fake and not ok:
                off_gold += 1
                if judge is not None and query.get("constraints") is not None:
                    split += 1
                    why = _violation(judge, query["constraints"], index, judged)
                    violating += why == "constraint"
                    policy += why == "policy"
        if expect == "results":
            precision = good / len(returned) if returned else 0.0
            recall = min(1.0, good / min(k, len(gold))) if gold else float(bool(good))
        else:
            wanted = {"clarify": {"clarify"}, "no_match": {"no_match"},
                      "clarify_or_no_match": {"clarify", "no_match"}}[expect]
            right = answer.status in wanted and not returned
            precision = recall = float(right)
        for key in ("all", query["family"]):
            t = totals.setdefault(key, SetTotals())
            t.n += 1
            t.precision += precision
            t.recall += recall
            t.recs += len(returned)
            t.satisfied += good
            t.hallucinated += real_bad
            t.invented += invented
            t.off_gold += off_gold
            t.off_gold_violating += violating
            t.off_gold_policy += policy
            t.off_gold_judged += split
            t.status_right += answer.status in {"results": {"results"}, "no_match": {"no_match"},
                                                "clarify": {"clarify"},
                                                "clarify_or_no_match": {"clarify", "no_match"}}[expect]
            if expect == "results":
                t.answerable += 1
                t.refused += answer.status != "results"
            elif expect == "no_match":
                t.expect_no_match += 1
                t.no_match_right += precision == 1.0
            else:
                t.expect_clarify += 1
                t.clarify_right += precision == 1.0
            if (precision < 1.0 or recall < 1.0) and key == "all":
                shown = " / ".join(query.get("turns") or [query["text"]])
                t.failures.append(f"{query['id']} [{query['family']}] {shown!r}: expect {expect} "
                                  f"got {answer.status} {[i for i, _, _ in returned]} "
                                  f"gold {sorted(gold)[:6]}{'...' if len(gold) > 6 else ''}")
    return totals


def format_set_report(name: str, totals: dict[str, SetTotals], failures: bool = False) -> str:
    lines = [f"TRACE query set: {name}",
             f"{'family':12} {'n':>4} {'P@3':>6} {'R@3':>6} {'CSR':>7} {'halluc':>7} {'clarify':>8} {'nomatch':>8} "
             f"{'refused':>8} {'status':>7} {'invent':>6} {'offgold':>7} {'viol':>7} {'policy':>7}"]
    order = ["all"] + sorted(k for k in totals if k != "all")
    for key in order:
        s = totals[key].summary()
        lines.append(f"{key:12} {s['queries']:>4} {s['P@3']:>6.3f} {s['R@3']:>6.3f} {s['CSR']:>7.2%} "
                     f"{s['hallucination']:>7.2%} {s['clarify_ok']:>8} {s['no_match_ok']:>8} {s['refused']:>8} "
                     f"{s['status']:>7.2%} {s['invented']:>6} {s['off_gold']:>7} {s['off_gold_violating']:>7} "
                     f"{s['off_gold_policy']:>7}")
    if failures:
        lines.extend("  " + f for f in totals["all"].failures)
    return "\n".join(lines)
