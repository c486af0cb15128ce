"""Generate (or check) the committed JSON Schemas of the audit package.

python -m audit.schema_gen --write    # regenerate after changing a model
python -m audit.schema_gen --check    # exit 1 if a committed file is stale
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from audit.record import record_json_schema
from audit.redaction import RedactionPolicy

SCHEMA_DIR = Path(__file__).parent / "schema"


def _policy_schema() -> dict[str, Any]:
    schema = RedactionPolicy.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "transition_record.schema.json": record_json_schema,
    "redaction_policy.schema.json": _policy_schema,
}


def render(name: str) -> str:
    """The exact text the committed file ``name`` must have."""
    return json.dumps(SCHEMAS[name](), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def stale() -> list[str]:
    out = []
    for name in SCHEMAS:
        path = SCHEMA_DIR / name
        if not path.exists() or path.read_text(encoding="utf-8") != render(name):
            out.append(name)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m audit.schema_gen")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        for name in SCHEMAS:
            (SCHEMA_DIR / name).write_text(render(name), encoding="utf-8")
        return 0
    names = stale()
    for name in names:
        print(f"stale: audit/schema/{name}")
    return 1 if names else 0


if __name__ == "__main__":
    raise SystemExit(main())
