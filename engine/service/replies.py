"""A sync route's JSON reply, built on the route's own thread.

FastAPI runs a sync (``def``) route on a worker thread, then validates and serialises what it returned against
the route's ``response_model`` on a second trip to a worker thread: two hand-offs between the event loop and
the pool per request, each a thread wake-up and a GIL hand-over. A route that returns ``ModelReply(model)(...)``
gets the same validation and the same bytes (``TypeAdapter(model)`` validated with ``from_attributes`` and
dumped with ``by_alias``, as FastAPI's response field does) in the trip it already makes; FastAPI sends a
returned ``Response`` as it is. The route keeps its ``response_model`` for the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi.exceptions import ResponseValidationError
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.responses import Response


class ModelReply:
    def __init__(self, model: type[BaseModel]) -> None:
        self._adapter: TypeAdapter[Any] = TypeAdapter(model)

    def body(self, content: Any) -> bytes:
        """``content`` validated against the model and dumped to JSON; an invalid reply raises what FastAPI
        raises for one (a 500, never a half-valid body)."""
        try:
            value = self._adapter.validate_python(content, from_attributes=True)
        except ValidationError as exc:
            errors = [{**err, "loc": ("response", *err.get("loc", ()))} for err in exc.errors(include_url=False)]
            raise ResponseValidationError(errors, body=content) from None
        return self._adapter.dump_json(value, by_alias=True)

    def __call__(self, content: Any, *, status_code: int = 200,
                 headers: Iterable[tuple[str, str]] = ()) -> Response:
        response = Response(content=self.body(content), status_code=status_code, media_type="application/json")
        # After content-length and content-type, as FastAPI appends a route's extra headers.
        response.headers.raw.extend((name.lower().encode("latin-1"), value.encode("latin-1"))
                                    for name, value in headers)
        return response
