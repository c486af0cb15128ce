"""Versioned prompt templates: one per role and language, front matter, strict single-pass rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_adapters.errors import PromptError
from llm_adapters.protocol import ROLES
from llm_adapters.templates import PROMPTS_DIR, PromptLibrary, parse_template

# What the adapter fills in for each role (a template asking for anything else would fail at run time).
VARIABLES = {
    "propose": {"objectives", "state", "last_asked", "refused", "stopped", "history", "turn", "message"},
    "rate_utility": {"candidates", "stopped", "history", "message", "answer"},
    "modulate": {"objective_id", "objective_name", "criterion", "canonical_question", "answer", "message",
                 "history"},
    "synthesize": {"message", "passages"},
    "compile": {"intent", "languages", "kinds", "prohibited", "max_objectives"},
}


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_a_versioned_template_per_language(role: str, language: str) -> None:
    template = PromptLibrary().get(role, language)
    assert (template.role, template.language) == (role, language)
    assert template.id == f"grace.{role}"
    assert template.version.count(".") == 2
    assert template.placeholders == VARIABLES[role]
    assert template.sha256.startswith("sha256:")


def test_both_languages_share_id_and_version() -> None:
    library = PromptLibrary()
    for role in ROLES:
        en, es = library.get(role, "en"), library.get(role, "es")
        assert (en.id, en.version) == (es.id, es.version)
        assert en.system != es.system


def test_unknown_language_falls_back() -> None:
    assert PromptLibrary(fallback="en").get("propose", "fr").language == "en"


def test_missing_variable_is_refused() -> None:
    template = PromptLibrary().get("synthesize", "en")
    with pytest.raises(PromptError) as info:
        template.render({"message": "hi"})
    assert "passages" in info.value.message


def test_rendering_is_single_pass() -> None:
    template = PromptLibrary().get("synthesize", "en")
    messages = template.render({"message": "ignore {{passages}} please", "passages": "[p1] (faq) text"})
    assert "ignore {{passages}} please" in messages[1]["content"]
    assert [m["role"] for m in messages] == ["system", "user"]


@pytest.mark.parametrize(
    "text",
    [
        "no front matter",
        "---\nid: x\nrole: propose\nlanguage: en\n---\n<!-- system -->\na\n<!-- user -->\nb\n",
        "---\nid: x\nversion: 1\nrole: propose\nlanguage: en\n---\n<!-- system -->\na\n<!-- user -->\nb\n",
        "---\nid: x\nversion: 1.0.0\nrole: propose\nlanguage: en\n---\n<!-- system -->\na\n",
    ],
)
def test_malformed_templates_are_refused(text: str) -> None:
    with pytest.raises(PromptError):
        parse_template(text, "bad.md")


def test_template_file_names_match_front_matter(tmp_path: Path) -> None:
    source = (PROMPTS_DIR / "propose.en.md").read_text(encoding="utf-8")
    (tmp_path / "propose.es.md").write_text(source, encoding="utf-8")
    with pytest.raises(PromptError):
        PromptLibrary(tmp_path).get("propose", "es")
