"""The committed OpenAPI document (``engine/service/openapi.json``) and the command that regenerates it:

python -m engine.service.openapi --write     # rewrite the committed file
python -m engine.service.openapi --check     # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

OPENAPI_PATH = Path(__file__).resolve().parent / "openapi.json"


def openapi_document() -> dict[str, Any]:
    """The app's OpenAPI document; it depends only on the routes, not on the goals or data served."""
    from engine.service.app import create_app
    from engine.service.catalog import Catalog
    from engine.service.config import ServiceConfig
    from engine.storage.sqlite import SQLiteStore

    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "openapi.db")
        try:
            app = create_app(
                config=ServiceConfig(operator_token="x" * 32),
                store=store,
                catalog=Catalog(bundle=None),
                audit_key=b"\x00" * 32,
            )
            document: dict[str, Any] = app.openapi()
        finally:
            store.close()
    # Round-trip through JSON so the comparison sees exactly what the file holds.
    loaded: dict[str, Any] = json.loads(json.dumps(document))
    return loaded


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = render(openapi_document())
    if args.write:
        OPENAPI_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {OPENAPI_PATH}")
        return 0
    current = OPENAPI_PATH.read_text(encoding="utf-8") if OPENAPI_PATH.exists() else ""
    if current != text:
        print(f"{OPENAPI_PATH} is out of date: run python -m engine.service.openapi --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
