"""Sales staff export the collected values from the console's API; reads are logged at info, exports at warning."""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from engine.rules.loader import RuleBundle
from engine.service.config import ServiceConfig
from engine.service.operators import token_hash
from tests.service.helpers import AUDIT_KEY, Service, generous_limits, make_service
from tests.storage.backends import StoreFactory

TOKENS = {"Vera Viewer": "viewer-token-0123456789", "Sam Sales": "sales-token-0123456789",
          "Aldo Auditor": "auditor-token-0123456789"}
ROLES = {"Vera Viewer": "viewer", "Sam Sales": "sales", "Aldo Auditor": "auditor"}


@pytest.fixture
def roled(factory: StoreFactory, bundle: RuleBundle, published_spec: object, tmp_path: Path) -> Service:
    path = tmp_path / "operators.json"
    path.write_text(json.dumps({"version": "1.0.0", "operators": [
        {"name": name, "role": ROLES[name], "token_sha256": token_hash(token)} for name, token in TOKENS.items()]}))
    config = ServiceConfig(operator_token="", limits=generous_limits(), operators_file=path)
    return make_service(factory.open(AUDIT_KEY), bundle, published_spec, config=config)  # type: ignore[arg-type]


def _as(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


def test_sales_staff_export_leads_as_csv_and_json(roled: Service) -> None:
    cid = roled.start()
    roled.turn(cid, "budget 90000 EUR")
    client = roled.client
    refused = client.get("/v1/operator/leads/export", headers=_as("Vera Viewer"))
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "auth.forbidden")
    with capture_logs() as logs:
        got = client.get("/v1/operator/leads/export?format=csv", headers=_as("Sam Sales"))
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    assert got.headers["content-disposition"] == 'attachment; filename="leads-all.csv"'
    rows = list(csv.DictReader(io.StringIO(got.text)))
    assert [r["conversation_id"] for r in rows] == [cid]
    assert rows[0]["budget"] and not rows[0]["budget"].startswith("enc:")  # the value itself, opened for export
    [event] = [e for e in logs if e["event"] == "operator.leads.exported"]
    assert (event["operator"], event["conversations"], event["log_level"]) == ("Sam Sales", 1, "warning")
    assert "90000" not in json.dumps(event)  # who took what selection out, never the values
    as_json = client.get("/v1/operator/leads/export?format=json&completed_only=true", headers=_as("Aldo Auditor"))
    assert as_json.status_code == 200 and as_json.json() == {"leads": []}  # nothing completed yet
    bad = client.get("/v1/operator/leads/export?since=2026-02-01&until=2026-01-01", headers=_as("Sam Sales"))
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "leads.date_range_empty")


def test_routine_reads_log_at_info_and_exports_at_warning(roled: Service) -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))  # restored by conftest
    with capture_logs() as logs:
        assert roled.client.get("/v1/operator/conversations", headers=_as("Vera Viewer")).status_code == 200
        assert roled.client.get("/v1/operator/leads/export", headers=_as("Sam Sales")).status_code == 200
    requests = [e for e in logs if e["event"] == "operator.request"]
    levels = {e["path"]: e["log_level"] for e in requests}
    assert levels == {"/v1/operator/conversations": "info", "/v1/operator/leads/export": "warning"}


def test_the_me_endpoint_names_the_sales_role(roled: Service) -> None:
    me = roled.client.get("/v1/operator/me", headers=_as("Sam Sales")).json()
    assert me == {"name": "Sam Sales", "role": "sales"}
    # sales staff do not read the audit trail
    cid = roled.start()
    assert roled.client.get(f"/v1/operator/conversations/{cid}", headers=_as("Sam Sales")).status_code == 403
