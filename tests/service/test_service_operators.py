"""Named operators with roles: who may read, audit and erase; every request names the operator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from engine.rules.loader import RuleBundle
from engine.service.config import ServiceConfig
from engine.service.errors import RequestError
from engine.service.operators import OperatorDirectory, Role, token_hash
from tests.service.helpers import AUDIT_KEY, Service, generous_limits, make_service
from tests.storage.backends import StoreFactory

TOKENS = {"Vera Viewer": "viewer-token-0123456789", "Aldo Auditor": "auditor-token-0123456789",
          "Ada Admin": "admin-token-0123456789"}
ROLES = {"Vera Viewer": "viewer", "Aldo Auditor": "auditor", "Ada Admin": "admin"}


@pytest.fixture
def operators_file(tmp_path: Path) -> Path:
    path = tmp_path / "operators.json"
    path.write_text(json.dumps({"version": "1.0.0", "operators": [
        {"name": name, "role": ROLES[name], "token_sha256": token_hash(token)} for name, token in TOKENS.items()]}))
    return path


@pytest.fixture
def roled(factory: StoreFactory, bundle: RuleBundle, published_spec: object, operators_file: Path) -> Service:
    config = ServiceConfig(operator_token="", limits=generous_limits(), operators_file=operators_file)
    return make_service(factory.open(AUDIT_KEY), bundle, published_spec, config=config)  # type: ignore[arg-type]


def _as(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


@pytest.mark.parametrize(("name", "summaries", "detail", "erase"), [
    ("Vera Viewer", 200, 403, 403),
    ("Aldo Auditor", 200, 200, 403),
    ("Ada Admin", 200, 200, 200),
])
def test_each_role_gets_exactly_its_rights(roled: Service, name: str, summaries: int, detail: int,
                                           erase: int) -> None:
    cid = roled.start()
    roled.turn(cid, "budget 90000 EUR")
    client = roled.client
    assert client.get("/v1/operator/conversations", headers=_as(name)).status_code == summaries
    got = client.get(f"/v1/operator/conversations/{cid}", headers=_as(name))
    assert got.status_code == detail
    if detail == 403:
        assert got.json()["error"]["code"] == "auth.forbidden"
    with capture_logs() as logs:
        erased = client.post(f"/v1/operator/conversations/{cid}/erase", headers=_as(name))
    assert erased.status_code == erase
    if erase == 200:
        assert erased.json()["actor"].startswith(f"operator-api:{name}@")
        assert any(e["event"] == "operator.request" and e["operator"] == name for e in logs)
    else:
        assert any(e["event"] == "operator.forbidden" and e["operator"] == name for e in logs)


def test_unknown_token_is_refused(roled: Service) -> None:
    response = roled.client.get("/v1/operator/conversations", headers={"Authorization": "Bearer nobody-0123456789"})
    assert (response.status_code, response.json()["error"]["code"]) == (401, "auth.invalid_token")


def test_single_token_is_an_admin_named_operator() -> None:
    directory = OperatorDirectory.single("legacy-token-0123456789")
    who = directory.identify("legacy-token-0123456789")
    assert who is not None and who.name == "operator" and who.role is Role.ADMIN
    assert directory.identify("legacy-token-012345678") is None


@pytest.mark.parametrize("entry", [
    {"name": "x", "role": "root", "token_sha256": "0" * 64},
    {"name": "x", "role": "admin", "token_sha256": "not-a-hash"},
])
def test_bad_operators_file_is_a_coded_error(tmp_path: Path, entry: dict[str, str]) -> None:
    path = tmp_path / "operators.json"
    path.write_text(json.dumps({"version": "1.0.0", "operators": [entry]}))
    with pytest.raises(RequestError) as err:
        ServiceConfig(operator_token="", operators_file=path).operators()
    assert err.value.code == "service.operators_invalid"


def test_duplicate_operator_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "operators.json"
    entry = {"name": "x", "role": "admin", "token_sha256": "0" * 64}
    path.write_text(json.dumps({"version": "1.0.0", "operators": [entry, {**entry, "token_sha256": "1" * 64}]}))
    with pytest.raises(RequestError) as err:
        OperatorDirectory.from_file(path)
    assert err.value.code == "service.operators_invalid"
