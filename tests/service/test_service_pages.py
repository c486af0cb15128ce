"""Pages and static assets the service serves, and the committed OpenAPI document."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.kernel.goal_models import PublishedGoalSpec, company_name
from engine.service.app import STATIC_DIR
from engine.service.openapi import OPENAPI_PATH, openapi_document
from engine.service.pages import demo_page
from tests.service.helpers import Service


def test_committed_openapi_matches_the_app() -> None:
    committed = json.loads(Path(OPENAPI_PATH).read_text(encoding="utf-8"))
    assert committed == openapi_document(), "run: python -m engine.service.openapi --write"


def test_served_openapi_matches_the_committed_one(service: Service) -> None:
    served = service.client.get("/openapi.json").json()
    assert served == json.loads(Path(OPENAPI_PATH).read_text(encoding="utf-8"))
    assert "/v1/conversations/{conversation_id}/turns" in served["paths"]
    turn = served["paths"]["/v1/conversations/{conversation_id}/turns"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in turn["parameters"])
    assert "409" in turn["responses"] and "429" in turn["responses"]


def test_widget_and_console_assets_are_served(service: Service) -> None:
    for name in ("widget.js", "widget.css", "console.js", "console.css", "site.css", "favicon.svg"):
        response = service.client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert response.content == (STATIC_DIR / name).read_bytes()
    console = service.client.get("/console")
    assert console.status_code == 200
    assert "frame-ancestors 'none'" in console.headers["content-security-policy"]
    assert b'src="/static/console.js"' in console.content


def test_demo_page_embeds_the_widget_with_one_script_tag(service: Service) -> None:
    page = service.client.get("/demo/test?lang=es")
    assert page.status_code == 200
    assert page.text.count('<script src="/static/widget.js"') == 1  # the one real tag
    assert "&lt;script src=&quot;/static/widget.js&quot;" in page.text  # and the same line shown as code
    assert 'data-goal="test"' in page.text and 'data-lang="es"' in page.text
    assert service.client.get("/demo/unknown").status_code == 404


def test_index_lists_demos_and_console(service: Service) -> None:
    page = service.client.get("/")
    assert page.status_code == 200
    assert "/demo/test?lang=en" in page.text and "/console" in page.text


def test_demo_page_is_headed_by_the_company_name_in_every_language() -> None:
    # The spec title ("... (English demo)") describes the goal for operators; a Spanish visitor's page must not
    # carry it as its heading.
    published = PublishedGoalSpec.model_validate_json(
        Path("demos/real_estate/published/real-estate/v4.json").read_text(encoding="utf-8")
    )
    name = company_name(published.spec)
    assert name and name not in published.spec.title

    @dataclass
    class _Goal:  # the two fields the page reads from a served goal
        published: PublishedGoalSpec
        aliases: tuple[str, ...] = ("real-estate",)

    for lang in published.spec.languages:
        page = demo_page(_Goal(published), lang)  # type: ignore[arg-type]
        assert f"<h1>{name}</h1>" in page and f"<title>{name}</title>" in page
        assert published.spec.title not in page
        assert f'<html lang="{lang}">' in page
