"""GET /v1/goals/{goal}/widget serves the published spec's presentation; a company that requires consent gets
no first message without it, and the first turn's audit record notes the consent."""

from __future__ import annotations

from pathlib import Path

from engine.kernel.goal_models import Widget
from engine.rules.loader import RuleBundle
from engine.storage.sqlite import SQLiteStore
from tests.conftest import make_spec, publish
from tests.service.helpers import AUDIT_KEY, Service, make_service

WIDGET = Widget(company_name="Brisa Homes", primary_color="#0F5E5A", accent_color="#0f5e5a",
                welcome={"en": "Welcome to Brisa Homes!", "es": "¡Bienvenido a Brisa Homes!"},
                privacy_url="https://brisa.example/privacy", consent_url="https://brisa.example/consent",
                consent_required=True)


def _themed(tmp_path: Path, bundle: RuleBundle) -> Service:
    spec = publish(make_spec().model_copy(update={"widget": WIDGET}))
    return make_service(SQLiteStore(tmp_path / "w.db", audit_key=AUDIT_KEY), bundle, spec)


def test_widget_config_defaults_when_the_spec_has_none(service: Service) -> None:
    body = service.client.get("/v1/goals/test/widget?lang=es").json()
    assert body["goal_ref"] == "test-spec/v1" and body["language"] == "es"
    assert body["company_name"] is None and body["welcome"] is None and body["consent_required"] is False
    assert body["primary_color"].startswith("#") and body["text_color"].startswith("#")


def test_widget_config_of_a_themed_spec(tmp_path: Path, bundle: RuleBundle) -> None:
    service = _themed(tmp_path, bundle)
    body = service.client.get("/v1/goals/test-spec/v1/widget?lang=es").json()
    assert body["company_name"] == "Brisa Homes" and body["welcome"] == "¡Bienvenido a Brisa Homes!"
    assert body["primary_color"] == "#0f5e5a" and body["text_color"] == "#ffffff"
    assert body["consent_required"] is True and body["consent_url"] == "https://brisa.example/consent"
    assert service.client.get("/v1/goals/test/widget?lang=fr").json()["language"] == "en"  # not offered
    missing = service.client.get("/v1/goals/nope/widget")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "goal.not_found"
    assert service.client.get("/v1/goals/test/widget?lang=EN!").status_code == 400


def test_first_message_needs_consent_and_the_audit_record_notes_it(tmp_path: Path, bundle: RuleBundle) -> None:
    service = _themed(tmp_path, bundle)
    cid = service.start()
    refused = service.turn(cid, "My budget is 250000 EUR")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "consent.required"
    assert service.store.records(cid) == [] and service.store.load(cid).turn == 0  # nothing was stored
    url = f"/v1/conversations/{cid}/turns"
    first = service.client.post(url, json={"message": "My budget is 250000 EUR", "consent": True},
                                headers=service.visitor(cid))
    assert first.status_code == 200, first.text
    second = service.turn(cid, "ana@example.org")  # later messages need nothing more
    assert second.status_code == 200
    records = service.store.records(cid)
    notes = [[n for n in r["notes"] if n.startswith("consent.given")] for r in records]
    assert len(notes[0]) == 1 and "https://brisa.example/consent" in notes[0][0]
    assert notes[1] == []
    chain = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers).json()
    assert chain["ok"] is True


def test_consent_is_noted_even_when_not_required(service: Service) -> None:
    cid = service.start()
    response = service.client.post(f"/v1/conversations/{cid}/turns", json={"message": "hello", "consent": True},
                                   headers=service.visitor(cid))
    assert response.status_code == 200
    [record] = service.store.records(cid)
    assert any(n.startswith("consent.given") for n in record["notes"])
