"""Question detection: my own wordings in both languages (the paper's sentences are not special-cased)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.retrieval.questions import is_question, question_sentences
from engine.retrieval.retrieval_rules import RetrievalRules

QUESTIONS = [
    "Is there a garage in the townhouse",
    "Do you sell flats near the port?",
    "Which villas come with a garden",
    "How much does the notary cost",
    "In which towns do you operate",
    "Could you tell me about tourist rentals",
    "I'd like to know whether you handle rentals.",
    "We are a family of four. Are there bigger homes?",
    "¿Limpiáis garajes?",
    "Dónde tenéis oficina",
    "Cuánto tardáis en responder",
    "Quisiera saber si trabajáis los sábados",
    "Información sobre limpieza de hoteles, por favor.",
    "Mi piso está en Málaga. ¿Llegáis hasta allí?",
    # chat writing: no accents, no question marks, abbreviations, contractions
    "hasta q hora atendeis los viernes",
    "cuanto me cobrariais por limpiar un garaje",
    "dnd teneis la nave",
    "que horario teneis en navidad",
    "are pets allowed in the flat",
    "where's the nearest branch",
    "whats the fee for a second visit",
    # an accented interrogative anywhere in the sentence
    "si se me rompe la cadena cuánto me cobráis por cambiarla",
    "y para el garaje, dónde aparco",
    # a question in a later clause, after a greeting or a statement
    "hello, what are your opening times",
    "my gutters overflow every winter, can you clear them",
    "I rent a room out and need the certificate, how much is that",
    "what happens to my deposit if the trip is cancelled",
    # noun-phrase requests and verbs addressed to the company
    "price of a window clean for a terrace",
    "opening hours sunday",
    "garden maintenance how much",
    "precio de una limpieza de sofá",
    "horario de verano",
    "aceptais tarjeta",
    "se puede aparcar en la puerta",
    "r u open on bank holidays",
    "wondering if you sell gift vouchers",
    "any discounts for pensioners",
    "hace falta pedir cita",
    "el sábado abrís",
    "algún descuento para familias numerosas",
    "quería saber si hacéis envíos a Canarias",
    # colloquial Spanish without question marks: hypotheticals, existence, addressed verbs in long sentences or
    # later clauses, closing interrogatives, "hasta cuando"
    "si cancelo la reserva una semana antes me devolvéis algo",
    "y si llego tarde a la primera clase que pasa",
    "en verano hay horario reducido",
    "somos tres, hay algun sitio para aparcar",
    "he comprado el material en otra tienda, me lo instalais vosotros",
    "os mando las fotos del salón por correo y nos hacéis un presupuesto sin compromiso",
    "traigo yo la tarta de cumpleaños, se puede",
    "y montar las cortinas del salón cuanto es",
    "desde cuando esta abierta la inscripcion",
]
STATEMENTS = [
    "We need four bedrooms and a big garden.",
    "My maximum is 280.000 EUR",
    "What we really want is a sea view.",
    "When I retire I will move to Spain.",
    "Have a great weekend",
    "Como ya dije, es una oficina pequeña.",
    "Busco limpieza de cristales dos veces al mes.",
    "El local está en Granada capital.",
    "Thanks, that is all.",
    "Que tengas un buen día.",
    "que te vaya bien",
    "Cuando llegue te llamo.",
    # exclamations, relative clauses, suggestions and counts are not questions
    "What a lovely flat!",
    "I have two dogs, which are both small.",
    "We have a budget, what we can afford is 200k.",
    "How about the one near the beach.",
    "Price is not the main thing for us.",
    "Tengo un perro, que es pequeño.",
    "Cuanto antes mejor.",
    "Seis personas y un perro.",
    "Necesito el piso cuanto antes.",
    "Ya me enviasteis el presupuesto.",
    "Hay un problema con la factura.",
    "Any day next week suits me.",
    # subjunctive and perfect addressed verbs, negated or quantified existence, "sí" as a yes
    "llevo una semana esperando que me llaméis",
    "cuando lleguéis a la obra llamad al timbre",
    "no me habéis contestado todavía al correo del lunes",
    "no hay prisa, lo dejamos para septiembre",
    "hay mucho ruido en la calle por las obras",
    "si, me interesa",
    "si vale",
    "",
    "   ",
]


@pytest.mark.parametrize("message", QUESTIONS)
def test_questions_are_detected(rules: RetrievalRules, message: str) -> None:
    assert is_question(message, rules)


@pytest.mark.parametrize("message", STATEMENTS)
def test_statements_are_not_questions(rules: RetrievalRules, message: str) -> None:
    assert not is_question(message, rules)


def test_question_sentences_isolate_the_question(rules: RetrievalRules) -> None:
    found = question_sentences("My budget is 300.000 EUR. Do you have flats with a lift?", rules.languages)
    assert found == ["Do you have flats with a lift?"]


@given(st.text(max_size=300))
def test_detection_is_total_and_marked_questions_always_count(rules: RetrievalRules, text: str) -> None:
    assert isinstance(is_question(text, rules), bool)
    assert is_question(text + " Any news?", rules)
