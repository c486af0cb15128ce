"""Source separation through the full turn runtime: a corpus passage that imitates visitor contact details is
shown to the visitor as a grounded answer, yet can never complete the contact objective (paper eq. 9)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

turn_module = pytest.importorskip("engine.kernel.turn")

from engine.kernel.commands import Command, Complete, Span  # noqa: E402
from engine.kernel.ports import Proposal, ProposerInput  # noqa: E402
from engine.retrieval import build_answerer  # noqa: E402
from engine.rules.loader import RuleBundle  # noqa: E402
from engine.storage.memory import InMemoryStore  # noqa: E402
from tests.conftest import make_spec, publish  # noqa: E402
from tests.retrieval.project_rules import project_rules  # noqa: E402

from .conftest import CorpusFactory  # noqa: E402
from .test_source_separation import INJECTED, PASSAGE, PLANTED  # noqa: E402

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
KEY = b"r" * 32


class GullibleProposer:
    """Proposes every e-mail address it can see anywhere, including assistant messages (a careless LLM)."""

    name = "gullible"
    version = "1"

    def propose(self, request: ProposerInput) -> Proposal:
        commands: list[Command] = []
        for message in [*request.history, request.message]:
            for match in EMAIL.finditer(message.text):
                span = Span(turn=message.turn, start=match.start(), end=match.end(), quote=match.group(0))
                commands.append(Complete(objective="contact", value=match.group(0), span=span))
        return Proposal(commands=commands, adapter=self.name, adapter_version=self.version)


def test_planted_corpus_contact_never_completes_the_visitor_contact(
    bundle: RuleBundle, make_corpus: CorpusFactory, embedding_cache: Path
) -> None:
    # a second, unrelated section: a one-section corpus gives the answer model no contrast to decide against
    about = "# About\n\n## Who are you?\n\nWe sell garden furniture.\n"
    corpus = make_corpus({"contact.md": PASSAGE, "about.md": about})
    runtime = turn_module.TurnRuntime(
        spec=publish(make_spec()),
        bundle=bundle,
        proposer=GullibleProposer(),
        answerer=build_answerer(corpus, rules=project_rules(), cache_dir=embedding_cache),
        store=InMemoryStore(),
        audit_key=KEY,
    )
    cid = runtime.start(language="en").conversation_id
    contact = [o.id for o in runtime.spec.spec.objectives].index("contact")

    first = runtime.handle(cid, "How can I reach your sales team?")
    assert first.answer.supported and PLANTED in first.answer.text and INJECTED in first.answer.text
    assert first.state[contact] == "0"

    # The planted addresses now sit in the assistant's message of the history; proposing them must fail.
    second = runtime.handle(cid, "Thanks, noted.")
    assert second.state[contact] == "0"
    assert runtime.store.load(cid).values.get("contact") is None

    third = runtime.handle(cid, "You can write to me at ana.real@example.org")
    assert third.state[contact] == "1"
    [value] = runtime.store.load(cid).values["contact"]
    assert value.value == "ana.real@example.org"
    # the audit record keeps the answer as company evidence: citations, no visitor span
    cited = first.record["answer"]["citations"]
    assert cited and all(c["source"] == "contact.md" for c in cited)
