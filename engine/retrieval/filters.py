"""Property filters on passage record fields, shared by every backend.

A filter list is a conjunction. ``contains_any`` matches list fields (amenities) or a scalar equal to one of the
values. Comparison of a missing field is false (a passage without ``price_eur`` never matches ``price_eur <= x``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.retrieval.errors import RetrievalConfigError
from engine.retrieval.models import FieldValue, Passage
from engine.text import fold

Operator = Literal["eq", "ne", "lt", "lte", "gt", "gte", "contains_any"]
_ORDERED = ("lt", "lte", "gt", "gte")


class FieldFilter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    op: Operator
    value: str | int | float | bool | list[str] | list[int] | list[float]

    @model_validator(mode="after")
    def _value_fits_operator(self) -> FieldFilter:
        if self.op == "contains_any":
            if not isinstance(self.value, list) or not self.value:
                raise ValueError("contains_any needs a non-empty list value")
        elif isinstance(self.value, list):
            raise ValueError(f"operator {self.op} needs a scalar value")
        if self.op in _ORDERED and (isinstance(self.value, bool) or not isinstance(self.value, int | float)):
            raise ValueError(f"operator {self.op} needs a number")
        return self


def parse_filters(raw: Sequence[dict[str, object]]) -> list[FieldFilter]:
    """Filters from configuration / API input, with a stable error code on bad input."""
    out: list[FieldFilter] = []
    for index, item in enumerate(raw):
        try:
            out.append(FieldFilter.model_validate(item))
        except ValueError as exc:
            raise RetrievalConfigError(
                f"filter {index}: {exc}".splitlines()[0], code="retrieval.config.filter"
            ) from None
    return out


def _scalar_equal(left: FieldValue, right: object) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return fold(left) == fold(right)
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return left == right


def matches(passage: Passage, filters: Sequence[FieldFilter]) -> bool:
    for flt in filters:
        value = passage.fields.get(flt.field)
        if value is None:
            return False
        if flt.op == "contains_any":
            wanted = flt.value if isinstance(flt.value, list) else [flt.value]
            have = value if isinstance(value, list) else [value]
            if not any(_scalar_equal(h, w) for h in have for w in wanted):
                return False
        elif flt.op in ("eq", "ne"):
            equal = not isinstance(value, list) and _scalar_equal(value, flt.value)
            if equal != (flt.op == "eq"):
                return False
        else:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            limit = flt.value
            assert isinstance(limit, int | float)  # guaranteed by the model validator
            ok = {"lt": value < limit, "lte": value <= limit, "gt": value > limit, "gte": value >= limit}[flt.op]
            if not ok:
                return False
    return True
