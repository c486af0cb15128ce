"""Golden scripted conversations of issue 32 (tests/golden/conversation_behaviours.json): corrections in any
state, several contact channels, dates shown as values, no silent stall, questions in several parts, through the
real turn runtime and the offline proposer; a conversation naming a ``demo`` also gets that demo's answerer (its
own corpus, the embedded index)."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine.demos import load_demo
from engine.goals.publication import approve
from engine.kernel.goal_models import GoalSpec
from engine.kernel.turn import TurnRuntime
from engine.kernel.values import current_values
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.runtimes import demo_answerer
from engine.storage.memory import InMemoryStore
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("conversation_behaviours.json")
DATA = json.loads(GOLDEN.read_text(encoding="utf-8"))


@cache
def _bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture(scope="module")
def runtimes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TurnRuntime]:
    bundle = _bundle()
    proposer = OfflineProposer.from_bundle(bundle)
    made = {}
    for path, demo in sorted({(c["spec"], c.get("demo", "")) for c in DATA["conversations"]}):
        spec = GoalSpec.model_validate_json((ROOT / path).read_text(encoding="utf-8"))
        published = approve(spec, bundle, "golden", tmp_path_factory.mktemp("specs"))
        answerer = demo_answerer(load_demo(demo), bundle) if demo else None
        made[_key(path, demo)] = TurnRuntime(spec=published, bundle=bundle, proposer=proposer, answerer=answerer,
                                             store=InMemoryStore(), audit_key=b"k" * 32)
    return made


def _key(spec: str, demo: str) -> str:
    return f"{spec}|{demo}"


def test_every_behaviour_has_english_and_spanish_conversations() -> None:
    languages: dict[str, set[str]] = {}
    for conversation in DATA["conversations"]:
        languages.setdefault(conversation["behaviour"], set()).add(conversation["language"])
    assert all(found >= {"en", "es"} for found in languages.values()), languages


@pytest.mark.parametrize("conversation", DATA["conversations"], ids=lambda c: c["id"])
def test_scripted_conversation(runtimes: dict[str, TurnRuntime], conversation: dict[str, Any]) -> None:
    runtime = runtimes[_key(conversation["spec"], conversation.get("demo", ""))]
    received_at = datetime.fromisoformat(DATA["received_at"])
    state = runtime.start(language=conversation["language"])
    for number, turn in enumerate(conversation["turns"], start=1):
        outcome = runtime.handle(state.conversation_id, turn["visitor"], received_at=received_at)
        reply = outcome.response_text()
        where = f"{conversation['id']} turn {number} ({turn['visitor']!r}): {reply!r}"
        assert reply, f"{where}: an empty reply (the widget would say 'noted')"
        assert outcome.state == turn["state"], where
        values = current_values(outcome.new_state)
        for objective, value in turn.get("values", {}).items():
            assert values.get(objective) == value, f"{where}: {objective} = {values.get(objective)!r}"
        for text in turn.get("reply_has", []):
            assert text in reply, f"{where}: missing {text!r}"
        for text in turn.get("reply_lacks", []):
            assert text not in reply, f"{where}: should not say {text!r}"
        notes = outcome.record["notes"]
        for note in turn.get("notes_have", []):
            assert note in notes, f"{where}: note {note!r} not in {notes}"
