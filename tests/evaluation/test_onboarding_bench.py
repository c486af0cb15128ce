"""The onboarding benchmark's pieces: the intent template, the slot choice, the phrase -> slot mapping and the
scoring (compile failures, unmapped slots and extra objectives stay in the denominator), on synthetic schemas and
the bakery dialogues of fixtures_sgd (made up, not SGD data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.evaluation.metrics import compute_metrics
from engine.evaluation.onboarding.bench import VariantResult, conversations, run_service
from engine.evaluation.onboarding.errors import OnboardingError
from engine.evaluation.onboarding.mapping import SlotMapping, locate
from engine.evaluation.onboarding.report import failure_classes, spread_table
from engine.evaluation.onboarding.slots import choose_slots, main_intent
from engine.evaluation.onboarding.template import as_item, write_intent
from engine.evaluation.sgd.corpus import SgdService, load_corpus
from llm_adapters.offline import OfflineProposer
from tests.proposer.helpers import project_bundle

FIXTURES = Path(__file__).resolve().parent / "fixtures_sgd"
BAKERY = {
    "service_name": "Bakery_1", "description": "Order cakes for pick-up from the best bakery in town",
    "slots": [
        {"name": "pickup_city", "description": "City where the cake is picked up"},
        {"name": "pickup_date", "description": "Date of pick-up"},
        {"name": "number_of_cakes", "description": "Number of cakes to order", "is_categorical": True,
         "possible_values": ["1", "2", "3", "4"]},
        {"name": "flavor", "description": "Cake flavor", "is_categorical": True,
         "possible_values": ["Chocolate", "Vanilla"]},
        {"name": "shop_phone", "description": "Phone number of the shop"}],
    "intents": [
        {"name": "FindShop", "is_transactional": False, "required_slots": ["pickup_city"]},
        {"name": "OrderCake", "is_transactional": True,
         "required_slots": ["pickup_city", "pickup_date", "number_of_cakes"], "optional_slots": {"flavor": "dontcare"}},
    ]}


def _service(raw: dict[str, object]) -> SgdService:
    return SgdService.model_validate(raw)


# -- slot choice -------------------------------------------------------------------------------------------------

def _intent(name: str, transactional: bool, required: list[str],
            optional: list[str] | None = None) -> dict[str, object]:
    return {"name": name, "is_transactional": transactional, "required_slots": required,
            "optional_slots": {s: "dontcare" for s in optional or []}}


def _with_intents(*intents: dict[str, object]) -> SgdService:
    slots = [{"name": n, "description": f"the {n}"} for n in ("a", "b", "c", "d")]
    return _service({"service_name": "S_1", "slots": slots, "intents": list(intents)})


def test_the_main_intent_is_the_transactional_one_with_most_required_slots() -> None:
    service = _with_intents(_intent("Search", False, ["a", "b", "c"]), _intent("Book", True, ["a", "b"]),
                            _intent("BookMore", True, ["a", "c", "d"]), _intent("BookTie", True, ["b", "c", "d"]))
    assert main_intent(service).name == "BookMore"  # transactional beats a longer search; a tie goes to the first
    assert choose_slots(service).names == ("a", "c", "d")


def test_without_a_transactional_intent_the_longest_wins_and_optional_slots_stand_in_for_none() -> None:
    assert choose_slots(_with_intents(_intent("Find", False, ["a"]), _intent("Look", False, ["b", "c"]))).names == \
        ("b", "c")
    choice = choose_slots(_with_intents(_intent("Find", False, [], ["c", "d"])))
    assert (choice.rule, choice.names) == ("optional", ("c", "d"))


def test_a_slot_the_schema_does_not_list_is_a_coded_error() -> None:
    with pytest.raises(OnboardingError) as info:
        choose_slots(_with_intents(_intent("Book", True, ["a", "zz"])))
    assert info.value.code == "onboarding.no_slots"


# -- template ----------------------------------------------------------------------------------------------------

def test_items_lower_the_first_letter_but_keep_acronyms_and_drop_a_final_stop() -> None:
    assert as_item("Date of  pick-up.") == "date of pick-up"
    assert as_item("ID of the account") == "ID of the account"


@given(st.lists(st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Zs")), min_size=1, max_size=30)
                .filter(lambda t: t.strip()), min_size=1, max_size=6))
def test_each_slot_span_holds_exactly_its_description(descriptions: list[str]) -> None:
    slots = [{"name": f"s{i}", "description": d} for i, d in enumerate(descriptions)]
    service = _service({"service_name": "S_1", "description": "A shop", "slots": slots,
                        "intents": [_intent("Buy", True, [s["name"] for s in slots])]})
    intent = write_intent(service, choose_slots(service))
    assert intent.text.startswith('Our company describes its service as "A shop". When a customer contacts us')
    for slot in service.slots:
        start, end = intent.spans[slot.name]
        assert intent.text[start:end] == as_item(slot.description)
    assert [intent.spans[s.name] for s in service.slots] == sorted(intent.spans.values())


def test_a_language_without_a_template_is_refused() -> None:
    service = _service(BAKERY)
    with pytest.raises(OnboardingError) as info:
        write_intent(service, choose_slots(service), "de")
    assert info.value.code == "onboarding.language_unsupported"


# -- mapping -----------------------------------------------------------------------------------------------------

def test_phrases_map_to_the_description_that_holds_them() -> None:
    service = _service(BAKERY)
    intent = write_intent(service, choose_slots(service))
    assert locate("date of pick-up", intent) == "pickup_date"
    assert locate("Number of cakes", intent) == "number_of_cakes"  # case-insensitive
    assert locate("cakes order number", intent) == "number_of_cakes"  # not a substring: most of its words
    assert locate("best bakery in town", intent) is None  # the context sentence holds no slot


def test_projection_scores_unmapped_slots_as_never_recorded_and_extra_objectives_last() -> None:
    mapping = SlotMapping(slots=("a", "b", "c"), objectives=("x", "y", "z", "w"),
                          by_slot={"a": ("x",), "b": ("y", "z"), "c": ()}, extra=("w",))
    assert mapping.coordinates() == ["a", "b", "c", "extra:w"]
    assert mapping.unmapped == ("c",)
    assert mapping.project("1101") == "1001"  # b needs both y and z; c never; w as recorded
    assert mapping.project("1111") == "1101"


# -- end to end on the bakery dialogues --------------------------------------------------------------------------

def _sgd(tmp_path: Path, service: dict[str, object]) -> Path:
    (tmp_path / "dev").mkdir(parents=True)
    (tmp_path / "dev" / "schema.json").write_text(json.dumps([service]), encoding="utf-8")
    (tmp_path / "dev" / "dialogues_001.json").write_bytes((FIXTURES / "dev" / "dialogues_001.json").read_bytes())
    return tmp_path


def _run(tmp_path: Path, service_raw: dict[str, object]) -> VariantResult:
    root = _sgd(tmp_path / "sgd", service_raw)
    corpus = load_corpus(root, {"Bakery_1"}, ("dev",))
    bundle = project_bundle()
    folder = tmp_path / "compiled"
    folder.mkdir()
    result = run_service(corpus.services["Bakery_1"], corpus.dialogues, variant=0, limit=None, bundle=bundle,
                         proposer=OfflineProposer.from_bundle(bundle), folder=folder, rules=None)
    return VariantResult(0, (result,))


def test_a_compiled_service_is_scored_per_asked_slot_against_the_visitors_informs(tmp_path: Path) -> None:
    result = _run(tmp_path, BAKERY)
    service = result.services[0]
    assert service.failure is None and service.mapping is not None
    assert service.coordinates[:3] == ["pickup_city", "pickup_date", "number_of_cakes"]
    assert not service.mapping.unmapped and not service.mapping.extra  # the context sentence is not an objective
    assert [o.id for o in service.outcomes] == ["b_001", "b_003"]  # single-service dialogues only
    first = service.outcomes[0]
    assert first.turns[0].reference == "101"  # city and cakes INFORMed in the first turn, the date never
    assert compute_metrics(service.outcomes).sta.total == service.turns
    assert result.pooled().sta.total == service.turns


def test_a_service_that_does_not_compile_counts_every_slot_as_a_failure(tmp_path: Path) -> None:
    raw = json.loads(json.dumps(BAKERY))
    raw["slots"][1]["description"] = "Religion of the customer"  # a prohibited category: compile refuses
    result = _run(tmp_path, raw)
    service = result.services[0]
    assert service.failure == "compile:goalspec.prohibited_category"
    assert service.outcomes and all(t.recorded == "000" for o in service.outcomes for t in o.turns)
    assert result.pooled().sta.total == service.turns  # still in the denominator
    assert failure_classes(result) == {"service not compiled (compile:goalspec.prohibited_category)": 1}
    assert "original" in spread_table([result])


def test_conversations_take_the_first_n_single_service_dialogues(tmp_path: Path) -> None:
    corpus = load_corpus(_sgd(tmp_path, BAKERY), {"Bakery_1"}, ("dev",))
    convs = conversations(corpus.dialogues, "Bakery_1", ["pickup_city"], limit=1)
    assert [c.id for c in convs] == ["b_001"] and convs[0].revealed[0] == frozenset({"pickup_city"})
