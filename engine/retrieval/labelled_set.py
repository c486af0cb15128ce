"""Labelled answering sets: visitor messages with what a correct answer must do, for any company corpus.

Kinds: ``answerable`` (``relevant`` passage ids, any of which answers; ``facts`` that the answer text must
contain), ``unanswerable`` (a topic the documents never mention: abstain), ``near_miss`` (the documents cover a
related topic, listed in ``near``, but not the asked thing: abstain), ``statement`` (no question: no answer).
The demo sets' older shape (``is_question`` / ``answerable``) is read as the same kinds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from engine.errors import first_validation_error
from engine.retrieval.errors import LabelledSetError

Kind = Literal["answerable", "unanswerable", "near_miss", "statement"]


class LabelledItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    language: str = Field(min_length=2)
    message: str = Field(min_length=1)
    kind: Kind
    relevant: list[str] = Field(default_factory=list)
    near: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _labels_fit_kind(self) -> LabelledItem:
        if self.kind == "answerable" and not self.relevant:
            raise ValueError(f"{self.id}: an answerable item needs relevant passage ids")
        if self.kind != "answerable" and (self.relevant or self.facts):
            raise ValueError(f"{self.id}: only answerable items have relevant passages and facts")
        return self

    @property
    def is_question(self) -> bool:
        return self.kind != "statement"


class LabelledSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = "1.0.0"
    description: str = ""
    company: str = ""
    corpus: str = Field(min_length=1)  # relative to the set file's folder (or to the repository for demo sets)
    items: list[LabelledItem] = Field(min_length=1)


def _legacy_item(raw: dict[str, Any]) -> dict[str, Any]:
    """A demo-set item (``is_question``/``answerable``) in the kinds above."""
    if "kind" in raw or "is_question" not in raw:
        return raw
    item = {k: v for k, v in raw.items() if k not in ("is_question", "answerable")}
    if not raw["is_question"]:
        item["kind"] = "statement"
        item.pop("relevant", None)
    elif raw.get("answerable"):
        item["kind"] = "answerable"
    else:
        item["kind"] = "unanswerable"
        item.pop("relevant", None)
    return item


def load_labelled_set(
    path: Path, corpus: Path | None = None, repository: Path | None = None
) -> tuple[LabelledSet, Path]:
    """The set and its corpus folder (``corpus`` overrides the set's own reference)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LabelledSetError(f"labelled set not found: {path}", code="retrieval.set.missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelledSetError(f"{path}: unreadable ({exc.__class__.__name__})", code="retrieval.set.read") from None
    except json.JSONDecodeError as exc:
        raise LabelledSetError(f"{path}: not JSON ({exc.msg})", code="retrieval.set.json") from None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise LabelledSetError(f"{path}: expected an object with an items list", code="retrieval.set.schema")
    data = {**data, "items": [_legacy_item(i) if isinstance(i, dict) else i for i in data["items"]]}
    if corpus is not None:
        data["corpus"] = str(corpus)
    try:
        labelled = LabelledSet.model_validate(data)
    except ValidationError as exc:
        where, message = first_validation_error(exc, ".", "(root)")
        raise LabelledSetError(f"{path}: {where}: {message}", code="retrieval.set.schema") from None
    ids = [i.id for i in labelled.items]
    if len(set(ids)) != len(ids):
        raise LabelledSetError(f"{path}: duplicate item ids", code="retrieval.set.schema")
    if corpus is not None:
        folder = Path(corpus)
    else:
        local = Path(path).parent / labelled.corpus
        folder = local if local.is_dir() or repository is None else repository / labelled.corpus
    if not folder.is_dir():
        raise LabelledSetError(f"corpus folder not found: {folder}", code="retrieval.set.corpus")
    return labelled, folder
