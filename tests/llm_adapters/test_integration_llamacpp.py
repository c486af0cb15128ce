"""Optional: a real OpenAI-compatible server (e.g. ``python -m llama_cpp.server`` with Gemma 3 270M).

Set GRACE_TEST_LLM_BASE_URL (and GRACE_TEST_LLM_MODEL) to run it. A weak model may fail to produce valid
output; that must surface as a typed LLMError, and whatever it proposes must cite the visitor's own text.
"""

from __future__ import annotations

import os

import pytest

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.config import load_llm_settings
from llm_adapters.errors import LLMError
from llm_adapters.factory import adapter_from_settings

BASE_URL = os.environ.get("GRACE_TEST_LLM_BASE_URL")

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not BASE_URL, reason="no OpenAI-compatible server (set GRACE_TEST_LLM_BASE_URL)"),
]


def test_a_real_server_cannot_put_words_in_the_visitors_mouth(spec: PublishedGoalSpec) -> None:
    settings = load_llm_settings(provider="llamacpp").with_overrides(
        base_url=BASE_URL, model=os.environ.get("GRACE_TEST_LLM_MODEL", "local"), max_reasks=1)
    adapter = adapter_from_settings(settings)
    text = "My budget is 300.000 EUR and I would like to live in Vera."
    request = ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[])
    try:
        proposal = adapter.propose(request)
    except LLMError as exc:
        assert exc.code.startswith("llm.")
        return
    for command in proposal.commands:
        assert text[command.span.start:command.span.end] == command.span.quote
    assert proposal.calls and proposal.calls[0]["latency_ms"] > 0
