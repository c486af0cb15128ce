"""Field-mapping files: how one directory's JSON/CSV fields map onto the normalised record.

A mapping is JSON validated against ``demos/directories/mappings/mapping.schema.json``. A field reference is a
dotted key path ("location.city"). ``secondary`` names a second file with the same records in the same order
(joined by position, checked on ``verify_field``) whose fields extend the primary ones, e.g. the Kansas notes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from engine.directory.errors import MappingError

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "demos" / "directories" / "mappings" / "mapping.schema.json"
SCALAR_FIELDS = ("name", "address", "city", "county", "state", "zip", "phone", "hours", "link")
TEXT_FIELDS = ("eligibility", "notes", "services", "tags")


@dataclass(frozen=True)
class ValueTag:
    field: str
    pattern: re.Pattern[str]
    tag: str


@dataclass(frozen=True)
class Secondary:
    file: str
    verify_field: str | None
    fields: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Mapping:
    path: Path
    version: str
    directory_id: str
    format: str
    records_path: tuple[str, ...]
    scalars: dict[str, str | None]
    texts: dict[str, tuple[str, ...]]
    secondary: Secondary | None
    tag_map: dict[str, str] = field(default_factory=dict)
    value_tags: tuple[ValueTag, ...] = ()
    default_state: str | None = None
    county_suffix: str | None = None
    coordinates: tuple[str, str, bool] | None = None  # (latitude ref, longitude ref, in the secondary file)


def _schema() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise MappingError(f"mapping schema unreadable: {exc}", code="directory.mapping_schema_missing") from exc
    return data


def load_mapping(path: Path) -> Mapping:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MappingError(f"{path}: not readable JSON ({exc})", code="directory.mapping_unreadable") from exc
    try:
        jsonschema.validate(data, _schema())
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise MappingError(f"{Path(path).name} at {where}: {exc.message}", code="directory.mapping_invalid") from exc
    fields = data["fields"]
    value_tags = []
    for entry in data.get("value_tags", []):
        try:
            value_tags.append(ValueTag(entry["field"], re.compile(entry["pattern"]), entry["tag"]))
        except re.error as exc:
            raise MappingError(f"{Path(path).name}: bad value_tags pattern {entry['pattern']!r} ({exc})",
                               code="directory.mapping_regex_invalid") from exc
    secondary = None
    if data.get("secondary"):
        sec = data["secondary"]
        secondary = Secondary(file=sec["file"], verify_field=sec.get("verify_field"),
                              fields={k: tuple(v) for k, v in sec["fields"].items()})
    defaults = data.get("defaults", {})
    return Mapping(
        path=Path(path), version=data["version"], directory_id=data["directory_id"], format=data["format"],
        records_path=tuple(data.get("records_path", [])),
        scalars={name: fields.get(name) for name in SCALAR_FIELDS},
        texts={name: tuple(fields.get(name, [])) for name in TEXT_FIELDS},
        secondary=secondary, tag_map=dict(data.get("tag_map", {})), value_tags=tuple(value_tags),
        default_state=defaults.get("state"), county_suffix=defaults.get("county_suffix"),
        coordinates=(data["coordinates"]["latitude"], data["coordinates"]["longitude"],
                     bool(data["coordinates"].get("from_secondary", False))) if data.get("coordinates") else None,
    )


def get_path(record: Any, path: str) -> Any:
    value = record
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def row_text(row: dict[str, Any]) -> str:
    """An object of scalars as one line of its values in field order: an HSDS schedule row
    ``{weekday, opens_at, closes_at}`` reads 'Saturday 9 a.m. 11 a.m.', every word the directory's own."""
    parts: list[str] = []
    for value in row.values():
        if isinstance(value, dict):
            parts.append(row_text(value))
        elif isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            parts.append(str(value).strip())
    return " ".join(part for part in parts if part)


def tag_values(record: Any, path: str) -> list[str]:
    """``values`` plus a JSON boolean as written in the file ('true'/'false'): a flag field a value tag reads."""
    raw = get_path(record, path)
    if isinstance(raw, bool):
        return ["true" if raw else "false"]
    return values(record, path)


def values(record: Any, path: str) -> list[str]:
    """Non-empty string values at ``path``: a string, number or list of them (nested lists flattened); an object
    (a schedule row, a phone entry) is one value, its scalar fields in order."""
    raw = get_path(record, path)
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, str):
            if value.strip():
                out.append(value.strip())
        elif isinstance(value, int | float):
            out.append(str(value))
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            text = row_text(value)
            if text:
                out.append(text)

    walk(raw)
    return out
