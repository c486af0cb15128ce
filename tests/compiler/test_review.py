"""The manager's review (issue 27, item 6) is written in the intent's language: header, labels, the flags on what
the compiler is unsure of and the compile notes, from rules/compiler.json ``review``."""

from __future__ import annotations

import pytest

from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.model import CompileInput
from engine.compiler.review import review_text

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}
INTENTS = {
    "en": ("We are a dog kennel. We want to know the dog's symptoms, the drop-off date, what they hope for from the "
           "stay and a phone number.", "intent language en", "notes:"),
    "es": ("Somos una residencia canina. Queremos saber la raza del perro, la fecha de entrada, qué esperan de la "
           "estancia y un teléfono.", "idioma de la intención: es", "notas:"),
    "fr": ("Nous sommes une pension canine. Nous voulons connaître la race du chien, la date d'arrivée, ce qu'ils "
           "attendent du séjour et un téléphone.", "langue de l'intention : fr", "notes:"),
}


@pytest.mark.parametrize("language", sorted(INTENTS))
def test_the_review_is_written_in_the_intents_language(compiler: DeterministicCompiler,
                                                       compiler_rules: CompilerRules, language: str) -> None:
    intent, header, notes = INTENTS[language]
    outcome = compiler.compile(CompileInput(intent=intent, language=language, **LOCALE))
    text = review_text(outcome, compiler_rules)
    assert header in text.splitlines()[0]
    assert notes in text
    for objective in outcome.spec.ordered():
        assert f"{objective.order}. {objective.id}  [{objective.criterion.kind.value}]" in text
        for question in objective.questions.values():
            assert question in text  # every language's question is shown
    # the breed (the symptoms) is set aside as an animal's (governance by meaning), said in the intent's language
    set_aside = [n for n in outcome.notes if compiler_rules.review is not None
                 and n.startswith(compiler_rules.review.text(language, "note_set_aside", keyword="x", group="g",
                                                             subject="s", phrase="p").split("'")[0])]
    assert set_aside and all("'" in n for n in set_aside)


def test_a_free_text_objective_is_flagged_in_the_intents_language(compiler: DeterministicCompiler,
                                                                  compiler_rules: CompilerRules) -> None:
    intent, _, _ = INTENTS["fr"]
    outcome = compiler.compile(CompileInput(intent=intent, language="fr", **LOCALE))
    text = review_text(outcome, compiler_rules)
    free = [o for o in outcome.spec.ordered() if o.criterion.kind.value == "free_text"]
    assert free, "the intent has a free-text part"
    assert "! texte libre" in text and "! free text" not in text


def test_every_language_gives_every_review_text(compiler_rules: CompilerRules) -> None:
    review = compiler_rules.review
    assert review is not None
    keys = set(review.texts["en"])
    assert {"en", "es", "fr"} <= set(review.texts)
    assert all(set(texts) == keys for texts in review.texts.values())
