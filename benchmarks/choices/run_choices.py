"""Choice matching by meaning (issue 32 item 3): run the offline proposer on benchmarks/choices/phrasings.json.

Each item is one visitor message answering the question of a one-objective spec whose enumeration vocabulary is
the item's option list. Counted: the option recorded (Complete), a clarification naming candidate options (the
proposer's ``proposer.choice_ambiguous`` note), or nothing. Prints per-language and overall figures and the
average proposer time per message.

    .venv/bin/python -m benchmarks.choices.run_choices [--failures]
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from engine.evaluation.targets import working_tree_bundle
from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from engine.rules.loader import DEFAULT_RULES_DIR
from llm_adapters.offline import OfflineProposer

SET = Path(__file__).with_name("phrasings.json")
BUNDLE: list[Any] = []
AMBIGUOUS_NOTE = "proposer.choice_ambiguous:"


def _spec(vocabulary_id: str, vocabulary: dict[str, Any], language: str) -> PublishedGoalSpec:
    data = {
        "schema_version": 1, "id": f"choices-{vocabulary_id}", "title": "Choices", "default_language": language,
        "languages": [language], "manager_intent": "choices benchmark",
        "vocabularies": {vocabulary_id: {"version": "1.0.0", "description": "benchmark options", "id": vocabulary_id,
                                         "kind": "enumeration", "options": vocabulary["options"]}},
        "objectives": [{"id": "choice", "name": "Choice", "order": 1, "weight": "1",
                        "questions": {language: "Which option?"},
                        "criterion": {"kind": "enumeration", "description": "the option the visitor wants",
                                      "params": {"vocabulary": vocabulary_id}}}],
    }
    spec = GoalSpec.model_validate(data)
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="bench",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def outcome(proposer: OfflineProposer, spec: PublishedGoalSpec, language: str, text: str) -> Any:
    request = ProposerInput(spec=spec, bits=[0], language=language, turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked="choice")
    proposal = proposer.propose(request)
    for command in proposal.commands:
        if command.type == "complete":  # recorded only if the decision layer's validator grounds it too
            objective = spec.spec.objectives[0]
            result = validate_value(objective.criterion, command.value, command.span.quote, BUNDLE[0], spec.spec)
            return command.value if result.ok else {"rejected": command.value, "code": result.code}
    for note in proposal.notes:
        if note.startswith(AMBIGUOUS_NOTE):
            return {"ambiguous": sorted(note.split(":", 2)[2].split(","))}
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", action="store_true", help="print every item not answered as expected")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    data = json.loads(SET.read_text(encoding="utf-8"))
    BUNDLE.append(working_tree_bundle(DEFAULT_RULES_DIR))
    proposer = OfflineProposer.from_bundle(BUNDLE[0])
    specs = {(vid, lang): _spec(vid, vocab, lang) for vid, vocab in data["vocabularies"].items()
             for lang in ("en", "es", "fr")}
    for spec in specs.values():
        proposer.warm_up(spec)
    counts: Counter[str] = Counter()
    elapsed = 0.0
    for item in data["items"]:
        spec = specs[(item["vocabulary"], item["language"])]
        started = time.perf_counter()
        got = outcome(proposer, spec, item["language"], item["text"])
        elapsed += time.perf_counter() - started
        expected = item["expected"]
        if isinstance(expected, dict):
            kind = "ambiguous"
            named = set(got.get("ambiguous", ())) if isinstance(got, dict) else set()
            ok = len(named) > 1 and named <= set(expected["ambiguous"])
            wrong = isinstance(got, str)
        elif expected is None:
            kind, ok, wrong = "none", got is None, got is not None
        else:
            kind, ok, wrong = "option", got == expected, isinstance(got, str) and got != expected
        counts[f"{kind}:total"] += 1
        counts[f"{kind}:{item['language']}:total"] += 1
        counts[f"{kind}:ok"] += ok
        counts[f"{kind}:{item['language']}:ok"] += ok
        counts[f"{kind}:wrong"] += wrong
        if args.failures and not ok:
            print(f"  {item['id']} [{item['language']}] {item['text']!r}: expected {expected!r}, got {got!r}")
    for kind, label in (("option", "option named (recorded right)"), ("ambiguous", "ambiguous (clarified)"),
                        ("none", "no option (nothing recorded)")):
        total = counts[f"{kind}:total"]
        per_language = ", ".join(f"{lang} {counts[f'{kind}:{lang}:ok']}/{counts[f'{kind}:{lang}:total']}"
                                 for lang in ("en", "es", "fr") if counts[f"{kind}:{lang}:total"])
        print(f"{label:34s} {counts[f'{kind}:ok']:3d}/{total:<3d} ({per_language}); wrong option recorded: "
              f"{counts[f'{kind}:wrong']}")
    print(f"proposer time per message: {1000 * elapsed / len(data['items']):.1f} ms ({len(data['items'])} items)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
