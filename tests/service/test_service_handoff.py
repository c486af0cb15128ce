"""Human handoff (issue 32 item 10): a visitor asks for a person in EN/ES/FR at any time; the reply says how the
company's people take over (its e-mail, phone, opening hours), the request is in the turn's audit record, and the
company's webhook gets the recorded values and the transcript link."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, time
from pathlib import Path

import pytest

from engine.errors import GraceError
from engine.handoff.config import HandoffConfig, OpeningHours, load_handoff
from engine.handoff.detect import HandoffDetector
from engine.leads.notifier import LeadNotifier
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.sqlite import SQLiteStore
from tests.conftest import copy_core_rules
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.service.test_service_webhooks import _notifier, _spec


@pytest.fixture(scope="module")
def handoff_bundle(tmp_path_factory: pytest.TempPathFactory) -> RuleBundle:
    root = copy_core_rules(tmp_path_factory.mktemp("rules"))
    shutil.copy(DEFAULT_RULES_DIR / "handoff.json", root)
    shutil.copy(DEFAULT_RULES_DIR / "schemas" / "handoff.schema.json", root / "schemas")
    return load_bundle(root, require_published=False)


@pytest.fixture(scope="module")
def detector() -> HandoffDetector:
    found = HandoffDetector.from_bundle(load_bundle(DEFAULT_RULES_DIR, require_published=False))
    assert found is not None
    return found


@pytest.mark.parametrize(("text", "language", "matched"), [
    ("Can I TALK to a person, please?", "en", "en"),
    ("I'd like to speak with a person about this", "en", "en"),
    ("Is there a real person I could write to?", "en", "en"),
    ("¿Puedo hablar con una persona?", "es", "es"),
    ("Prefiero hablar con alguien del equipo", "es", "es"),
    ("Je voudrais parler à quelqu’un, s'il vous plaît", "fr", "fr"),
    ("Est-ce que je peux parler à un conseiller ?", "fr", "fr"),
    ("Quiero hablar con una persona", "en", "es"),  # a visitor may switch language
])
def test_a_request_for_a_person_is_detected_in_every_language(detector: HandoffDetector, text: str, language: str,
                                                              matched: str) -> None:
    found = detector.detect(text, language)
    assert found is not None and found.language == matched


@pytest.mark.parametrize("text", [
    "I want to talk to a personal trainer about the gym",  # whole words only
    "My budget is 300,000 euros",
    "La persona de contacto soy yo",
    "Une personne seule, deux chambres",
])
def test_ordinary_messages_are_not_a_handoff(detector: HandoffDetector, text: str) -> None:
    assert detector.detect(text, "en") is None


def test_opening_hours_in_the_company_time_zone() -> None:
    hours = OpeningHours("Europe/Madrid", {"mon": [(time(9), time(18))]})
    assert hours.open_at(datetime(2026, 1, 5, 9, 30, tzinfo=UTC))  # Monday 10:30 in Madrid
    assert not hours.open_at(datetime(2026, 1, 5, 17, 30, tzinfo=UTC))  # 18:30 in Madrid
    assert not hours.open_at(datetime(2026, 1, 6, 10, 0, tzinfo=UTC))  # Tuesday: closed
    assert hours.describe() == "mon 09:00-18:00 Europe/Madrid"


def test_a_bad_handoff_file_is_refused_with_a_code(tmp_path: Path) -> None:
    path = tmp_path / "handoff.json"
    path.write_text(json.dumps({"version": "1.0.0", "goals": {"shop": {"email": "not-an-address"}}}))
    with pytest.raises(GraceError) as info:
        load_handoff(path)
    assert info.value.code == "handoff.config_invalid"
    path.write_text(json.dumps({"version": "1.0.0", "goals": {"shop": {
        "phone": "+34 950 000 000", "hours": {"time_zone": "Mars/Olympus", "weekly": {}}}}}))
    with pytest.raises(GraceError) as info:
        load_handoff(path)
    assert info.value.code == "handoff.time_zone"


@pytest.fixture
def desk(tmp_path: Path, handoff_bundle: RuleBundle) -> Iterator[tuple[Service, Receiver, LeadNotifier]]:
    receiver = Receiver([200])
    notifier = _notifier(tmp_path, receiver.url)
    every_day = {d: [(time(0), time(23, 59))] for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")}
    config = HandoffConfig(email="team@shop.example", phone="+34 950 000 000", webhook=True,
                           hours=OpeningHours("UTC", every_day), console_url="https://chat.shop.example/console")
    service = make_service(SQLiteStore(tmp_path / "h.db", audit_key=AUDIT_KEY), handoff_bundle, _spec(),
                           notifier=notifier, handoff={"shop": config})
    yield service, receiver, notifier
    receiver.server.shutdown()
    service.store.close()


def test_asking_for_a_person_is_answered_audited_and_sent_to_the_inbox(
        desk: tuple[Service, Receiver, LeadNotifier]) -> None:
    service, receiver, notifier = desk
    cid = service.start("shop")
    first = service.turn(cid, "budget 90000 EUR").json()
    assert first.get("handoff") is None
    reply = service.turn(cid, "Can I talk to a person please?").json()
    handoff = reply["handoff"]
    assert handoff["email"] == "team@shop.example" and handoff["phone"] == "+34 950 000 000"
    assert handoff["open_now"] is True and "Someone is available now." in handoff["text"]
    assert "our team" in handoff["text"]  # the spec names no company: never its title
    [record] = [r for r in service.store.records(cid) if r["turn"] == 2]
    assert "handoff.requested:en" in record["notes"]  # audited with the turn
    assert notifier.dispatcher.run_due(datetime.now(UTC))
    events = [json.loads(body) for _, body in receiver.requests]
    [event] = [e for e in events if e["event"] == "conversation.handoff"]
    assert event["values"] == {"budget": "90000 EUR"} and event["turn"] == 2 and event["conversation_id"] == cid
    assert event["transcript_url"] == f"https://chat.shop.example/console#conversation={cid}"


def test_spanish_visitor_gets_the_handoff_in_spanish(desk: tuple[Service, Receiver, LeadNotifier]) -> None:
    service = desk[0]
    cid = service.start("shop")
    reply = service.turn(cid, "Prefiero hablar con una persona").json()
    assert reply["handoff"] is not None and "team@shop.example" in reply["handoff"]["text"]
    assert reply["handoff"]["text"].startswith("Por supuesto")


def test_the_demo_companies_have_a_handoff_configuration() -> None:
    from engine.service.runner import DEMO_HANDOFF

    configs = load_handoff(DEMO_HANDOFF)
    specs = {json.loads(p.read_text(encoding="utf-8"))["id"]
             for p in (DEFAULT_RULES_DIR.parent / "demos").glob("*/goal_spec.json")}
    assert set(configs) <= specs and {"real-estate", "cleaning"} <= set(configs)
    assert all(c.email and c.phone and c.hours for c in configs.values())
