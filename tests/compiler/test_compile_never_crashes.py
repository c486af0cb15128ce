"""Whatever a manager types, compile answers with a spec or a stable error code, never a crash: intents are drawn
from the compiler's own rule words (lead-ins, joiners, keywords, stop words) mixed with punctuation, so the
reader's rarely combined paths (shared heads, options after colons, empty keywords) are exercised."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.compiler.compiler_rules import DEFAULT_RULES_DIR
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.model import CompileInput
from engine.errors import GraceError

PUNCTUATION = [",", ".", ":", ";", "?", "(", ")", "-", "/", "+", "&", "etc.", "e.g.", "'", "\"", "1", "2", "10"]


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _word_pool() -> list[str]:
    data = json.loads((DEFAULT_RULES_DIR / "compiler.json").read_text(encoding="utf-8"))
    words = {w for s in _strings(data) if len(s) <= 40 and "{" not in s and "\\" not in s for w in s.split()}
    return sorted(w for w in words if 0 < len(w) <= 20)


WORDS = _word_pool()
TOKENS = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(PUNCTUATION)), min_size=2, max_size=40)
JOINERS = {"en": [", ", " and ", " or ", ": "], "es": [", ", " y ", " o ", ": "], "fr": [", ", " et ", " ou ", ": "]}


@st.composite
def listed_intent(draw: st.DrawFn, language: str) -> str:
    """A list-like intent: items of one to four rule words, joined as managers join them."""
    items = draw(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=2, max_size=8))
    text = " ".join(items[0])
    for item in items[1:]:
        text += draw(st.sampled_from(JOINERS[language])) + " ".join(item)
    return text + draw(st.sampled_from(["", ".", "?"]))


@st.composite
def intent_text(draw: st.DrawFn) -> tuple[str, str]:
    language = draw(st.sampled_from(sorted(JOINERS)))
    text = draw(st.one_of(TOKENS.map(" ".join), listed_intent(language)))
    return language, text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(drawn=intent_text())
def test_any_intent_compiles_or_fails_with_a_stable_code(compiler: DeterministicCompiler,
                                                          drawn: tuple[str, str]) -> None:
    language, text = drawn
    request = CompileInput(intent=text, language=language, currency="EUR", phone_region="ES",
                           time_zone="Europe/Madrid")
    try:
        compiler.compile(request)
    except GraceError as exc:
        assert exc.code and "." in exc.code  # a stable dotted code, never an unexplained failure
