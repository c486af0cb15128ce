"""Per-kind scores (each objective's bit alone, summed per kind), the zeros and keyword baselines, and the
missed-evidence analysis, on hand-made outcomes and the bakery fixtures."""

from __future__ import annotations

from pathlib import Path

from engine.evaluation.metrics import ConversationOutcome, Ratio, TurnOutcome, compute_metrics
from engine.evaluation.runner import ConversationRun, TurnRow
from engine.evaluation.sgd.baselines import keyword_outcomes, slot_pattern, zeros_outcomes
from engine.evaluation.sgd.convert import convert_service
from engine.evaluation.sgd.corpus import SgdSlot, load_corpus
from engine.evaluation.sgd.mapping import load_service_bench
from engine.evaluation.sgd.misses import analyse
from engine.evaluation.sgd.scoring import metrics_by_kind, project

FIXTURES = Path(__file__).resolve().parent / "fixtures_sgd"


def _conv(cid: str, rows: list[tuple[str, str]]) -> ConversationOutcome:
    width = len(rows[0][0])
    return ConversationOutcome(cid, "0" * width, tuple(TurnOutcome(i + 1, rec, ref, True)
                                                       for i, (rec, ref) in enumerate(rows)))


def test_projection_scores_one_coordinate() -> None:
    outcome = _conv("a", [("01", "11"), ("11", "11")])
    assert [t.recorded for t in project(outcome, 0).turns] == ["0", "1"]
    assert [t.reference for t in project(outcome, 1).turns] == ["1", "1"]


def test_metrics_per_kind_sum_bits_of_that_kind() -> None:
    # coordinates: place, quantity, place
    outcomes = [
        _conv("a", [("000", "100"), ("100", "110"), ("101", "111")]),
        _conv("b", [("001", "000"), ("001", "000")]),
    ]
    kinds = metrics_by_kind(outcomes, ["place", "quantity", "place"])
    place, quantity = kinds["place"], kinds["quantity"]
    # place bits: coord 0 right at t2,t3 of a and both turns of b; coord 2 right at every turn of a, none of b
    assert place.sta == Ratio(2 + 2 + 3 + 0, 10)
    assert place.tsa == Ratio(1 + 1 + 1 + 0, 4)
    # place events: recorded (a,2,c0) (a,3,c2) (b,1,c2); reference (a,1,c0) (a,3,c2)
    assert place.ep == Ratio(1, 3) and place.er == Ratio(1, 2)
    assert quantity.sta == Ratio(1 + 2, 5) and quantity.er == Ratio(0, 1) and quantity.ep == Ratio(0, 0)
    assert place.mc == Ratio(10, 10)
    # the whole-vector metrics are stricter than any per-kind bit accuracy
    assert compute_metrics(outcomes).sta == Ratio(0, 5)


def test_zeros_baseline_records_nothing() -> None:
    corpus = load_corpus(FIXTURES)
    bench = load_service_bench(FIXTURES / "bench", "Bakery_1", corpus.services)
    dataset = convert_service(corpus.dialogues, bench)
    outcomes = zeros_outcomes(dataset)
    assert {t.recorded for o in outcomes for t in o.turns} == {"00000"}
    metrics = compute_metrics(outcomes)
    assert metrics.ep == Ratio(0, 0) and metrics.er == Ratio(0, 6)


def test_keyword_baseline_matches_schema_values_and_digits() -> None:
    corpus = load_corpus(FIXTURES)
    bench = load_service_bench(FIXTURES / "bench", "Bakery_1", corpus.services)
    dataset = convert_service(corpus.dialogues, bench)
    first, third = keyword_outcomes(dataset, bench)
    # order: city, day, cakes, flavour, extras. '2' sets cakes (a digit); 'Chocolate' (a SELECT of the offer)
    # sets flavour; 'gluten free' is not a schema value (True/False) and places/dates never match.
    assert [t.recorded for t in first.turns] == ["00100", "00110", "00110", "00110"]
    assert [t.recorded for t in third.turns] == ["00010", "00010"]  # 'lemon curd', case-insensitive


def test_keyword_patterns() -> None:
    count = SgdSlot(name="n", is_categorical=True, possible_values=["1", "2"])
    flavour = SgdSlot(name="f", is_categorical=True, possible_values=["Lemon Curd", "Vanilla"])
    free = SgdSlot(name="c", is_categorical=False)
    assert (p := slot_pattern(count)) is not None and p.search("table for 7")
    assert (p := slot_pattern(flavour)) is not None and p.search("LEMON CURD please")
    assert not p.search("vanillas")  # whole words only
    assert slot_pattern(free) is None


def _row(turn: int, state: str, reference: str, rejected: tuple[str, ...] = ()) -> TurnRow:
    return TurnRow(turn=turn, visitor=f"visitor {turn}", state=state, reference=reference, scored=True,
                   action="ASK(x)", question=None, fail_closed=None, rejected=rejected)


def test_missed_evidence_is_grouped_by_objective_slot_and_reason() -> None:
    corpus = load_corpus(FIXTURES)
    bench = load_service_bench(FIXTURES / "bench", "Bakery_1", corpus.services)
    dataset = convert_service(corpus.dialogues, bench)
    runs = [
        ConversationRun("b_001", "bakery_1", "test-bakery", "00000", (
            _row(1, "00000", "10100", ("complete(cakes): quantity.out_of_range",)),
            _row(2, "10000", "10100"),
            _row(3, "10010", "10100"),
            _row(4, "10010", "10101"),
        )),
        ConversationRun("b_003", "bakery_1", "test-bakery", "00000", (
            _row(1, "00011", "01011"),
            _row(2, "00011", "01011"),
        )),
    ]
    misses, unsupported = analyse(dataset, runs)
    found = {(m.objective, m.slots, m.reason): m.count for m in misses}
    assert found == {
        ("city", "pickup_city", "recorded at a later turn"): 1,
        ("cakes", "number_of_cakes", "rejected: quantity.out_of_range"): 1,
        ("extras", "gluten_free", "not proposed"): 1,
        ("day", "pickup_date", "not proposed"): 1,
    }
    cakes = next(m for m in misses if m.objective == "cakes")
    assert cakes.samples[0]["informed"] == {"number_of_cakes": ["2"]}
    assert cakes.samples[0]["visitor"] == "visitor 1" and cakes.samples[0]["recorded_turn"] is None
    assert next(m for m in misses if m.objective == "city").samples[0]["recorded_turn"] == 2
    assert [(u.objective, u.reason, u.count) for u in unsupported] == [
        ("flavour", "no INFORM in the dialogue", 1)]
