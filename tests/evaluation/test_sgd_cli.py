"""``grace bench sgd`` end to end on the bakery fixtures; the shipped specs and mappings; the real SGD dev split
when ../shared holds it (skipped otherwise)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, tzinfo
from itertools import pairwise
from pathlib import Path

import pytest

from engine.cli import main
from engine.evaluation.metrics import dominates
from engine.evaluation.sgd.cli import DEFAULT_SGD_DIR
from engine.evaluation.sgd.convert import convert_service
from engine.evaluation.sgd.corpus import SPLITS, load_corpus, load_schema
from engine.evaluation.sgd.mapping import DEFAULT_BENCH_DIR, available_services, load_service_bench
from engine.evaluation.targets import working_tree_bundle
from engine.goals.validation import read_spec_file, semantic_issues
from engine.rules.loader import DEFAULT_RULES_DIR

FIXTURES = Path(__file__).resolve().parent / "fixtures_sgd"


def _args(tmp_path: Path, *extra: str) -> list[str]:
    return ["bench", "sgd", "--sgd", str(FIXTURES), "--bench-dir", str(FIXTURES / "bench"), "--unpublished-rules",
            "--splits", "dev", "--out", str(tmp_path / "sgd.json"), *extra]


def test_bench_sgd_prints_tables_and_writes_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path, "--per-objective")) == 0
    printed = capsys.readouterr().out
    assert any(line.startswith("Bakery_1") and " extras " in line and "features" in line
               for line in printed.splitlines())
    assert "Bakery_1" in printed and "keyword" in printed and "zeros" in printed and "turns/s" in printed
    results = json.loads((tmp_path / "sgd.json").read_text(encoding="utf-8"))
    service = results["services"]["Bakery_1"]
    assert service["dialogues"] == 2 and service["turns"] == 6
    assert service["metrics"]["zeros"] == {"STA": "0/6", "TSA": "0/2", "MC": "6/6", "EP": "0/0", "ER": "0/6"}
    # keyword events: cakes b_001 t1 and flavour b_003 t1 are right; flavour b_001 t2 (a SELECT) is not
    assert service["metrics"]["keyword"]["ER"] == "2/6" and service["metrics"]["keyword"]["EP"] == "2/3"
    assert service["metrics"]["grace"]["MC"] == "6/6"  # monotonicity holds whatever the proposer finds
    assert set(service["kinds"]["grace"]) == {"place", "datetime", "quantity", "enumeration", "features"}
    assert service["kinds"]["zeros"]["features"]["ER"] == "0/2"  # one objective, two slots, two dialogues
    assert results["combined"]["zeros"] == service["metrics"]["zeros"]
    extras = next(o for o in service["objectives"] if o["id"] == "extras")
    assert extras["kind"] == "features" and extras["slots"] == ["gluten_free", "has_delivery"]
    assert extras["grace"]["STA"].endswith("/6") and extras["grace"]["ER"].endswith("/2")
    assert [t["reference"] for t in service["conversations"][0]["turns"]] == ["10100", "10100", "10100", "10101"]


def test_bench_sgd_without_data_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _args(tmp_path)
    args[args.index("--sgd") + 1] = str(tmp_path / "missing")
    assert main(args) == 2
    assert "error sgd.data_missing" in capsys.readouterr().err
    assert not (tmp_path / "sgd.json").exists()


def test_negative_limit_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path, "--limit-per-service", "-1")) == 2
    assert "error sgd.limit_invalid" in capsys.readouterr().err


def test_unknown_service_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path, "--services", "Bakery_1,Cinema_9")) == 2
    assert "error sgd.service_unknown" in capsys.readouterr().err


def test_shipped_specs_validate_and_map_every_objective() -> None:
    bundle = working_tree_bundle(DEFAULT_RULES_DIR)
    services = available_services(DEFAULT_BENCH_DIR)
    assert len(services) >= 8
    for name in services:
        spec_path = DEFAULT_BENCH_DIR / "specs" / f"{name}.json"
        mapping = json.loads((DEFAULT_BENCH_DIR / "mappings" / f"{name}.json").read_text(encoding="utf-8"))
        spec = read_spec_file(spec_path)
        assert semantic_issues(spec, bundle) == [], name
        assert set(mapping["objectives"]) == {o.id for o in spec.objectives}, name
        assert set(spec.languages) == {"en", "es"}, name


needs_sgd = pytest.mark.skipif(not all((DEFAULT_SGD_DIR / split / "schema.json").is_file() for split in SPLITS),
                               reason="the SGD train and dev splits are not at ../shared/data/sgd")


@needs_sgd
def test_real_dev_split_converts_with_the_shipped_mappings() -> None:
    schema = load_schema(DEFAULT_SGD_DIR, SPLITS)
    assert len(schema) == 34 and set(available_services(DEFAULT_BENCH_DIR)) == set(schema)  # every service
    for name in available_services(DEFAULT_BENCH_DIR):
        load_service_bench(DEFAULT_BENCH_DIR, name, schema)  # every mapped slot exists in the real schema
    corpus = load_corpus(DEFAULT_SGD_DIR, {"Restaurants_2"})
    bench = load_service_bench(DEFAULT_BENCH_DIR, "Restaurants_2", corpus.services)
    dataset = convert_service(corpus.single_service("Restaurants_2"), bench)
    assert len(dataset.conversations) == 73  # the corpus README's count of single-service dialogues
    ids = dataset.configs["restaurants_2"].ids
    for conversation in dataset.conversations:
        refs = [t.reference or "" for t in conversation.turns]
        assert all(dominates(later, earlier) for earlier, later in pairwise(refs))  # never withdrawn
    first = dataset.conversations[0].turns[0]
    assert first.reference is not None
    assert first.reference[ids.index("time")] == "1" and first.reference[ids.index("party_size")] == "1"


def test_splits_causes_and_failure_classes_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(tmp_path, "--now", "2027-03-01T09:00:00Z")) == 0
    printed = capsys.readouterr().out
    assert "conversations happen at 2027-03-01T09:00:00+00:00" in printed
    assert any(line.startswith("dev ") and "grace" in line for line in printed.splitlines())
    assert "failure class" in printed and "cause" in printed
    results = json.loads((tmp_path / "sgd.json").read_text(encoding="utf-8"))
    assert results["benchmark"] == "sgd-dev" and set(results["splits"]) == {"dev"}
    classes = [(c["on"], c["id"]) for c in results["failure_classes"]]
    assert ("missed", "timing.late") in classes and ("unsupported", "free-text-non-answer") in classes
    service = results["services"]["Bakery_1"]
    missed = sum(n for key, n in service["failure_classes"].items() if key.startswith("missed:"))
    assert missed == sum(g["count"] for g in service["missed"])  # every missed bit is in one class


def test_a_missing_split_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _args(tmp_path)
    args[args.index("--splits") + 1] = "train,dev"  # the fixtures hold only dev
    assert main(args) == 2
    assert "error sgd.data_missing" in capsys.readouterr().err


class _ShiftedClock(datetime):
    """A clock years away from today: no evaluation number may depend on it."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _ShiftedClock:
        moment = datetime(2031, 7, 19, 23, 59, tzinfo=UTC)
        return cls.fromtimestamp(moment.timestamp(), tz)

    @classmethod
    def utcnow(cls) -> _ShiftedClock:
        return cls.fromtimestamp(datetime(2031, 7, 19, 23, 59, tzinfo=UTC).timestamp(), UTC)

    @classmethod
    def today(cls) -> _ShiftedClock:
        return cls.now()


def _numbers(tmp_path: Path, name: str) -> dict[str, object]:
    assert main(_args(tmp_path, "--out", str(tmp_path / name))) == 0
    results = json.loads((tmp_path / name).read_text(encoding="utf-8"))
    return {"combined": results["combined"], "states": [
        [t["state"] for t in c["turns"]] for c in results["services"]["Bakery_1"]["conversations"]]}


def test_the_same_run_gives_the_same_numbers_whatever_the_clock_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    first = _numbers(tmp_path, "a.json")
    for module in list(sys.modules.values()):  # every engine/proposer module that took the datetime class
        if getattr(module, "__name__", "").startswith(("engine", "llm_adapters")) and getattr(
                module, "datetime", None) is datetime:
            monkeypatch.setattr(module, "datetime", _ShiftedClock)
    assert _numbers(tmp_path, "b.json") == first
