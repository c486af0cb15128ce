"""Reading several SGD splits and the SGD-X rewordings of a schema (synthetic folders shaped like the corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.evaluation.sgd.corpus import load_corpus, load_schema
from engine.evaluation.sgd.errors import SgdError

SERVICE = {"service_name": "Shop_1", "description": "a shop", "slots": [
    {"name": "city", "description": "City of the shop"},
    {"name": "count", "description": "How many", "is_categorical": True, "possible_values": ["1", "2"]}],
    "intents": [{"name": "Buy", "is_transactional": True, "required_slots": ["city", "count"]}]}
VARIANT = {"service_name": "Shop_12", "description": "a store", "slots": [
    {"name": "town_of_store", "description": "Town where the store is"},
    {"name": "how_many", "description": "Number wanted", "is_categorical": True, "possible_values": ["1", "2"]}],
    "intents": [{"name": "Purchase", "is_transactional": True, "required_slots": ["town_of_store", "how_many"]}]}


def _dialogue(dialogue_id: str) -> dict[str, object]:
    return {"dialogue_id": dialogue_id, "services": ["Shop_1"],
            "turns": [{"speaker": "USER", "utterance": "hi", "frames": []}]}


def _write(root: Path) -> Path:
    for split in ("train", "dev"):
        (root / split).mkdir(parents=True)
        (root / split / "schema.json").write_text(json.dumps([SERVICE]))
        (root / split / "dialogues_001.json").write_text(json.dumps([_dialogue("1_00000")]))
    (root / "sgd_x" / "v2" / "train").mkdir(parents=True)
    (root / "sgd_x" / "v2" / "train" / "schema.json").write_text(json.dumps([VARIANT]))
    return root


def test_two_splits_keep_dialogue_ids_apart(tmp_path: Path) -> None:
    corpus = load_corpus(_write(tmp_path), splits=("train", "dev"))
    assert [(d.dialogue_id, d.split) for d in corpus.dialogues] == [
        ("train-1_00000", "train"), ("dev-1_00000", "dev")]
    assert [d.dialogue_id for d in load_corpus(tmp_path).dialogues] == ["1_00000"]  # one split: ids unchanged


def test_variant_keeps_original_names_with_reworded_descriptions(tmp_path: Path) -> None:
    service = load_schema(_write(tmp_path), ("train",), variant=2)["Shop_1"]
    assert [s.name for s in service.slots] == ["city", "count"]
    assert [s.description for s in service.slots] == ["Town where the store is", "Number wanted"]
    assert service.intents[0].required_slots == ["city", "count"]
    assert service.description == "a store"


def test_missing_variant_and_unknown_split_are_coded(tmp_path: Path) -> None:
    _write(tmp_path)
    with pytest.raises(SgdError) as missing:
        load_schema(tmp_path, ("train",), variant=3)
    assert missing.value.code == "sgd.data_missing"
    with pytest.raises(SgdError) as unknown:
        load_schema(tmp_path, ("test",))
    assert unknown.value.code == "sgd.split_unknown"
    with pytest.raises(SgdError) as bad_variant:
        load_schema(tmp_path, ("train",), variant=9)
    assert bad_variant.value.code == "sgd.variant_unknown"
