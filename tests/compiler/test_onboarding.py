"""A new company goes live without editing rules/: compile with its documents -> validate -> approve -> chat.

The company (a bicycle repair shop in Denver) is not among the demos. Its locale comes from the intent (Denver:
USD, US, America/Denver), its listed bike types become a vocabulary inside the spec, and a scripted conversation
completes every objective: an enumeration, free text, a count, a date, money and contact.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.cli.chat import run_chat
from engine.errors import GraceError
from engine.goals.publication import load_published, spec_hash
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle
from engine.runtimes import offline_runtime

INTENT = ("We run a bicycle repair shop in Denver. We want to know the type of bike (road, mountain, city or "
          "electric), what is wrong with it, how many bikes they are bringing, which day they can drop it off, "
          "their budget for the repair and a phone number or email so our mechanic can confirm.")
CORPUS = ("# Spoke & Chain — bicycle repairs in Denver\n\nWe repair road, mountain, city and electric bikes at our "
          "workshop in Denver. A standard tune-up costs $89; brake service starts at $45. Drop-offs are welcome "
          "Tuesday to Saturday, 9am to 6pm.\n")
VISITOR = ["It's an electric bike.", "The rear brake squeals and the chain slips.", "Just two bikes.",
           "Next Tuesday works for me.", "Up to 150 dollars.", "You can write to alex.rivera@example.com"]


def _company_data_in_rules() -> list[str]:
    """Files of rules/ that mention the new company (its vocabularies would have to be copied there before)."""
    return sorted(p.relative_to(DEFAULT_RULES_DIR).as_posix() for p in DEFAULT_RULES_DIR.rglob("*")
                  if p.is_file() and "spoke_and_chain" in p.read_text(encoding="utf-8", errors="replace"))


@pytest.fixture()
def company(tmp_path: Path) -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "services.md").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "intent.txt").write_text(INTENT, encoding="utf-8")
    return tmp_path


def test_a_new_company_goes_live_without_touching_the_rule_bundle(
        company: Path, draft_bundle: RuleBundle, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    vocabularies_before = sorted(p.name for p in (DEFAULT_RULES_DIR / "vocabularies").iterdir())
    rules = str(draft_bundle.root)
    candidate = company / "candidate.json"
    assert main(["compile", "--intent-file", str(company / "intent.txt"), "--corpus", str(company / "corpus"),
                 "--out", str(candidate), "--id", "spoke-and-chain"]) == 0
    spec = json.loads(candidate.read_text(encoding="utf-8"))
    assert spec["locale"] == {"currency": "USD", "phone_region": "US", "time_zone": "America/Denver"}
    assert [(o["criterion"]["kind"]) for o in spec["objectives"]] == [
        "enumeration", "free_text", "quantity", "datetime", "money", "contact"]
    assert list(spec["vocabularies"]) == ["spoke_and_chain_type_of_bike"]

    assert main(["goals", "validate", str(candidate), "--rules", rules]) == 0
    assert main(["goals", "approve", str(candidate), "--by", "Jane Manager", "--rules", rules]) == 0
    published = load_published(company / "published" / "spoke-and-chain" / "v1.json")
    capsys.readouterr()

    runtime = offline_runtime(published, bundle=draft_bundle, audit_key=b"k" * 32)
    out = io.StringIO()
    assert run_chat(runtime, None, io.StringIO("\n".join(VISITOR) + "\n\n"), out) == 0
    transcript = out.getvalue()
    assert "state 111111" in transcript, transcript
    assert "grace> Could you tell me how many bikes you are bringing?" in transcript
    assert published.spec.ordered()[0].questions["en"] == (
        "Could you tell me the type of bike: road, mountain, city or electric?")

    # `grace eval --candidate-spec` runs the new company too (state metrics on the scripted conversation).
    ids = [o.id for o in published.spec.ordered()]
    dataset = {"name": "onboarding", "configs": {"spoke_and_chain": {"objectives": [{"id": i} for i in ids]}},
               "conversations": [{"id": "B01", "config": "spoke_and_chain", "turns": [
                   {"turn": n, "visitor": text, "reference": "1" * n + "0" * (len(ids) - n)}
                   for n, text in enumerate(VISITOR, start=1)]}]}
    (company / "dataset.json").write_text(json.dumps(dataset), encoding="utf-8")
    assert main(["eval", str(company / "dataset.json"), "--candidate-spec", str(candidate), "--rules", rules,
                 "--unpublished-rules", "--no-answerer", "--quiet", "--out", str(company / "results.json")]) == 0
    assert "TSA    1/1 (100.0%)" in capsys.readouterr().out
    # Nothing was written to rules/: no vocabulary file was added, no rule file names the company.
    assert sorted(p.name for p in (DEFAULT_RULES_DIR / "vocabularies").iterdir()) == vocabularies_before
    assert _company_data_in_rules() == []


def test_the_runtime_refuses_a_spec_whose_company_data_is_missing(
        company: Path, draft_bundle: RuleBundle, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    candidate = company / "candidate.json"
    assert main(["compile", "--intent-file", str(company / "intent.txt"), "--out", str(candidate),
                 "--id", "spoke-and-chain"]) == 0
    assert main(["goals", "approve", str(candidate), "--by", "Jane", "--rules", str(draft_bundle.root)]) == 0
    published = load_published(company / "published" / "spoke-and-chain" / "v1.json")

    altered = published.spec.model_copy(update={"vocabularies": {}})
    with pytest.raises(GraceError) as info:  # data altered after approval: the hash no longer matches
        offline_runtime(published.model_copy(update={"spec": altered}), bundle=draft_bundle, audit_key=b"k" * 32)
    assert info.value.code == "goalspec.hash_mismatch"
    rehashed = published.model_copy(update={"spec": altered, "content_hash": spec_hash(altered)})
    with pytest.raises(GraceError) as info:  # hashed without its data: the vocabulary cannot be found
        offline_runtime(rehashed, bundle=draft_bundle, audit_key=b"k" * 32)
    assert info.value.code == "goalspec.vocabulary_unknown" and "type_of_bike" in info.value.message
