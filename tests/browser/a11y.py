"""Accessibility checks with axe-core in the page under test (axe-playwright-python ships axe.min.js: no CDN,
no network). Open shadow roots (the widget) are checked too. Serious and critical violations fail the test;
every violation, whatever its impact, is written next to the screenshots as axe-<name>.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FAILING_IMPACTS = ("serious", "critical")
# WCAG 2.x A and AA plus axe's best practices (landmarks, headings, region).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_check(page: Any, shots: Path, name: str) -> list[dict[str, Any]]:
    from axe_playwright_python.sync_playwright import Axe

    options = {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": TAGS}}
    response = Axe().run(page, options=options).response
    found = [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "targets": [node["target"] for node in v["nodes"]][:10]}
        for v in response["violations"]
    ]
    (shots / f"axe-{name}.json").write_text(
        json.dumps({"axe": response.get("testEngine", {}).get("version"), "url": response.get("url"),
                    "violations": found}, indent=2), encoding="utf-8")
    failing = [v for v in found if v["impact"] in FAILING_IMPACTS]
    assert not failing, f"axe ({name}): serious/critical violations: {json.dumps(failing, indent=1)}"
    return found
