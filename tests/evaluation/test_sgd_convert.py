"""SGD -> evaluation dataset: the visitor-evidence rule, single-service selection, multi-slot objectives, and the
coded errors for missing data and bad mappings (hand-written bakery fixtures, not SGD data)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.evaluation.sgd.convert import convert_service
from engine.evaluation.sgd.corpus import SgdDialogue, SgdTurn, load_corpus
from engine.evaluation.sgd.errors import SgdError
from engine.evaluation.sgd.evidence import informed_slots, visitor_turns
from engine.evaluation.sgd.mapping import ServiceBench, load_service_bench

FIXTURES = Path(__file__).resolve().parent / "fixtures_sgd"
BENCH = FIXTURES / "bench"


def _bench() -> tuple[ServiceBench, list[SgdDialogue]]:
    corpus = load_corpus(FIXTURES)
    return load_service_bench(BENCH, "Bakery_1", corpus.services), list(corpus.dialogues)


def _turn(speaker: str, *actions: tuple[str, str, list[str]], service: str = "Bakery_1") -> SgdTurn:
    return SgdTurn.model_validate({"speaker": speaker, "utterance": "x", "frames": [
        {"service": service, "actions": [{"act": a, "slot": s, "values": v} for a, s, v in actions]}]})


def test_only_the_users_own_inform_counts() -> None:
    assert informed_slots(_turn("USER", ("INFORM", "flavor", ["Vanilla"])), "Bakery_1") == {"flavor": ("Vanilla",)}
    assert informed_slots(_turn("USER", ("INFORM", "flavor", ["dontcare"])), "Bakery_1") == {}
    assert informed_slots(_turn("USER", ("SELECT", "flavor", ["Vanilla"])), "Bakery_1") == {}
    assert informed_slots(_turn("USER", ("AFFIRM", "", [])), "Bakery_1") == {}
    assert informed_slots(_turn("SYSTEM", ("INFORM", "shop_phone", ["555"])), "Bakery_1") == {}
    assert informed_slots(_turn("SYSTEM", ("OFFER", "flavor", ["Vanilla"])), "Bakery_1") == {}
    # another service's frame in the same turn is not this service's evidence
    assert informed_slots(_turn("USER", ("INFORM", "city", ["Ogden"]), service="Florist_1"), "Bakery_1") == {}
    # a dontcare beside a real value: the real value counts
    assert informed_slots(_turn("USER", ("INFORM", "pickup_date", ["dontcare", "Friday"])), "Bakery_1") == {
        "pickup_date": ("Friday",)}


def test_visitor_turns_keep_the_system_turn_they_answer() -> None:
    _, dialogues = _bench()
    turns = visitor_turns(dialogues[0], "Bakery_1")
    assert [t.utterance for t in turns][:2] == ["I'd like to order 2 cakes in Springfield.", "Chocolate sounds good."]
    assert turns[0].system_before == ""
    assert turns[1].system_before.startswith("We have a lovely Chocolate cake")
    assert turns[1].informed == {}  # SELECT of the offer


def test_references_follow_the_evidence_rule_and_skip_multi_service_dialogues() -> None:
    bench, dialogues = _bench()
    dataset = convert_service(dialogues, bench)
    assert [c.id for c in dataset.conversations] == ["b_001", "b_003"]  # b_002 also uses Florist_1
    config = dataset.configs["bakery_1"]
    assert config.ids == ["city", "day", "cakes", "flavour", "extras"]
    first, third = dataset.conversations
    # SELECT of the offered flavour, AFFIRM of the system's date and 'any day' (dontcare) reveal nothing
    assert [t.reference for t in first.turns] == ["10100", "10100", "10100", "10101"]
    assert [t.reference for t in third.turns] == ["01011", "01011"]
    assert all(t.scored for c in dataset.conversations for t in c.turns)
    assert first.turns[0].model_extra is not None
    assert first.turns[0].model_extra["informed"] == {"pickup_city": ["Springfield"], "number_of_cakes": ["2"]}


def test_an_objective_mapped_to_several_slots_completes_from_any_of_them() -> None:
    bench, dialogues = _bench()
    assert bench.slots["extras"] == ("gluten_free", "has_delivery")
    dataset = convert_service(dialogues, bench)
    extras = dataset.configs["bakery_1"].ids.index("extras")
    by_id = {c.id: c for c in dataset.conversations}
    assert (by_id["b_001"].turns[-1].reference or "")[extras] == "1"  # gluten_free
    assert (by_id["b_003"].turns[0].reference or "")[extras] == "1"  # has_delivery


def test_limit_takes_the_first_dialogues_in_corpus_order() -> None:
    bench, dialogues = _bench()
    assert [c.id for c in convert_service(dialogues, bench, limit=1).conversations] == ["b_001"]


def test_missing_folder_is_a_coded_error(tmp_path: Path) -> None:
    with pytest.raises(SgdError) as err:
        load_corpus(tmp_path / "nowhere")
    assert err.value.code == "sgd.data_missing"


def test_malformed_dialogue_file_is_a_coded_error(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "dev", tmp_path / "dev")
    (tmp_path / "dev" / "dialogues_002.json").write_text('[{"dialogue_id": "x", "services": ["Bakery_1"]}]')
    with pytest.raises(SgdError) as err:
        load_corpus(tmp_path)
    assert err.value.code == "sgd.data_invalid"


def _mapping_error(tmp_path: Path, mapping: dict[str, object], service: str = "Bakery_1") -> str:
    shutil.copytree(BENCH, tmp_path / "bench")
    (tmp_path / "bench" / "mappings" / "Bakery_1.json").write_text(json.dumps(mapping))
    with pytest.raises(SgdError) as err:
        load_service_bench(tmp_path / "bench", service, load_corpus(FIXTURES).services)
    return f"{err.value.code}: {err.value.message}"


GOOD = {"city": ["pickup_city"], "day": ["pickup_date"], "cakes": ["number_of_cakes"], "flavour": ["flavor"],
        "extras": ["gluten_free", "has_delivery"]}


def test_mapping_errors_are_coded(tmp_path: Path) -> None:
    unknown_slot = _mapping_error(tmp_path / "a", {"service": "Bakery_1", "objectives": {**GOOD, "day": ["when"]}})
    assert unknown_slot.startswith("sgd.mapping_invalid") and "'when'" in unknown_slot
    twice = _mapping_error(tmp_path / "b", {"service": "Bakery_1", "objectives": {**GOOD, "day": ["flavor"]}})
    assert twice.startswith("sgd.mapping_invalid") and "two objectives" in twice
    missing = dict(GOOD)
    del missing["extras"]
    assert _mapping_error(tmp_path / "c", {"service": "Bakery_1", "objectives": missing}).startswith(
        "sgd.mapping_invalid")
    assert _mapping_error(tmp_path / "d", {"service": "Bakery_1", "objectives": GOOD},
                          service="Florist_1").startswith("sgd.service_unknown")
    assert _mapping_error(tmp_path / "e", {"service": "Bakery_1", "objectives": GOOD},
                          service="Cinema_9").startswith("sgd.service_unknown")
