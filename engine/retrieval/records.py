"""CSV / JSON record files → one passage per record, the record's fields kept as typed metadata.

Field names must be identifiers (they become filter keys and Weaviate properties). CSV cells are typed
conservatively: integers and decimals become numbers, ``list_fields`` are split on ``|``, the rest is text.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.retrieval.errors import CorpusError
from engine.retrieval.models import FieldValue, Passage
from engine.text import normalize

_FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT = re.compile(r"^-?\d+$")
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
LIST_SEPARATOR = "|"


class RecordFileConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id_field: str = "id"
    title_field: str | None = None
    text_fields: list[str] = Field(default_factory=list)  # empty: render every other field as "name: value"
    list_fields: list[str] = Field(default_factory=list)  # CSV only
    language_field: str = "language"


def _typed_cell(value: str, is_list: bool) -> FieldValue | None:
    value = value.strip()
    if is_list:
        return [item.strip() for item in value.split(LIST_SEPARATOR) if item.strip()]
    if not value:
        return None
    if _INT.match(value):
        return int(value)
    if _DECIMAL.match(value):
        return float(value)
    return value


def _check_value(value: Any, where: str) -> FieldValue | None:
    if value is None:
        return None
    if isinstance(value, bool | int | float | str):
        return normalize(value) if isinstance(value, str) else value
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return [normalize(v) for v in value]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return list(value)
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            return [float(v) for v in value]
    raise CorpusError(f"{where}: values must be scalars or lists of one scalar type", code="retrieval.corpus.record")


def _rows(text: str, source: str, config: RecordFileConfig) -> list[dict[str, Any]]:
    if source.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        return [
            {k: _typed_cell(v or "", k in config.list_fields) for k, v in row.items() if k is not None}
            for row in reader
        ]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{source}: not JSON ({exc.msg})", code="retrieval.corpus.record") from None
    if isinstance(data, dict) and isinstance(data.get("records"), list):
        data = data["records"]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise CorpusError(f"{source}: expected a list of objects", code="retrieval.corpus.record")
    return data


def parse_records(text: str, source: str, config: RecordFileConfig, default_language: str) -> list[Passage]:
    passages: list[Passage] = []
    seen: set[str] = set()
    for index, row in enumerate(_rows(text, source, config), start=1):
        where = f"{source} record {index}"
        fields: dict[str, FieldValue] = {}
        for name, raw in row.items():
            if not _FIELD_NAME.match(str(name)):
                raise CorpusError(f"{where}: field name {name!r} is not an identifier", code="retrieval.corpus.record")
            value = _check_value(raw, f"{where} field {name}")
            if value is not None:
                fields[name] = value
        record_id = fields.get(config.id_field)
        if not isinstance(record_id, str | int) or isinstance(record_id, bool) or str(record_id) == "":
            raise CorpusError(f"{where}: missing id field {config.id_field!r}", code="retrieval.corpus.record")
        if str(record_id) in seen:
            raise CorpusError(f"{where}: duplicate id {record_id!r}", code="retrieval.corpus.record")
        seen.add(str(record_id))
        title = str(fields.get(config.title_field, "")) if config.title_field else ""
        text_names = config.text_fields or [
            n for n in fields if n not in (config.id_field, config.title_field, config.language_field)
        ]
        parts: list[str] = []
        for name in text_names:
            value = fields.get(name)
            if value is None:
                continue
            rendered = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
            parts.append(rendered if config.text_fields else f"{name}: {rendered}")
        body = "\n".join(p for p in parts if p.strip())
        if not body:
            raise CorpusError(f"{where}: no text in fields {text_names}", code="retrieval.corpus.record")
        language = fields.get(config.language_field, default_language)
        document = PurePosixPath(source).stem.split(".")[0].replace("-", " ").replace("_", " ")
        passages.append(
            Passage(
                id=f"{source}#{record_id}",
                source=source,
                title=title,
                text=body,
                language=str(language),
                kind="record",
                label=f"{document} › {title}" if title else document,
                fields=fields,
            )
        )
    return passages
