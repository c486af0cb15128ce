"""Translation twins (engine/retrieval/twins.py): one section written in two languages pools its answer probability.

Built on small bilingual corpora with the real bundled model: twins are found between a section and its
translation, never between unrelated sections or within one language.
"""

from __future__ import annotations

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.answerability import Support
from engine.retrieval.retrieval_rules import RetrievalRules
from engine.retrieval.twins import translation_twins
from tests.retrieval.conftest import CorpusFactory

EN = """# Questions

## Do you deliver on Sundays?
No. We deliver from Monday to Saturday between 9:00 and 19:00.

## Can I return a sofa I bought?
Yes, within 30 days, if it is unused and in its original packaging. Collection costs 40 euros.

## Do you offer financing?
Yes: up to 12 monthly instalments without interest for purchases over 600 euros.

## How long is the warranty on mattresses?
Every mattress carries a ten-year manufacturer's warranty against sagging.

## Do you assemble wardrobes?
Our fitters assemble wardrobes at home for a flat fee of 75 euros.
"""

ES = """---
language: es
---
# Preguntas

## ¿Repartís los domingos?
No. Repartimos de lunes a sábado entre las 9:00 y las 19:00.

## ¿Puedo devolver un sofá que compré?
Sí, en un plazo de 30 días, si no se ha usado y está en su embalaje original. La recogida cuesta 40 euros.

## ¿Tenéis una tienda de alfombras?
Sí, en la calle Mayor 4 vendemos alfombras de lana hechas a mano.

## ¿Cuánto mide el aparcamiento?
El aparcamiento de clientes tiene 25 plazas y está detrás de la tienda.
"""


def _answerer(make_corpus: CorpusFactory, rules: RetrievalRules, files: dict[str, str]) -> GroundedAnswerer:
    return build_answerer(make_corpus(files), rules=rules)


def test_a_section_and_its_translation_are_twins_and_unrelated_sections_are_not(
    make_corpus: CorpusFactory, rules: RetrievalRules
) -> None:
    answerer = _answerer(make_corpus, rules, {"faq.md": EN, "preguntas.es.md": ES})
    twins = translation_twins(answerer.retriever.corpus.passages, answerer.retriever.vectors, 2.0)
    by_title = {p.id: p.title for p in answerer.retriever.corpus.passages}
    pairs = {(by_title[a], by_title[b]) for a, b in twins.items()}
    assert ("Do you deliver on Sundays?", "¿Repartís los domingos?") in pairs
    assert ("Can I return a sofa I bought?", "¿Puedo devolver un sofá que compré?") in pairs
    assert all(twins[twins[a]] == a for a in twins)  # symmetric: mutual nearest neighbours
    # the financing section has no translation; the rug shop and the car park have no English version
    twinned = {by_title[a] for a in twins}
    alone = {"Do you offer financing?", "¿Tenéis una tienda de alfombras?", "¿Cuánto mide el aparcamiento?"}
    assert not twinned & alone


def test_a_one_language_corpus_has_no_twins(make_corpus: CorpusFactory, rules: RetrievalRules) -> None:
    answerer = _answerer(make_corpus, rules, {"faq.md": EN})
    assert translation_twins(answerer.retriever.corpus.passages, answerer.retriever.vectors, 2.0) == {}


def test_the_decision_pools_a_passage_with_its_twin(make_corpus: CorpusFactory, rules: RetrievalRules) -> None:
    answerer = _answerer(make_corpus, rules, {"faq.md": EN, "preguntas.es.md": ES})
    twins = translation_twins(answerer.retriever.corpus.passages, answerer.retriever.vectors, 2.0)
    first, second = sorted(twins.items())[0]
    other = next(p.id for p in answerer.retriever.corpus.passages if p.id not in twins)

    def supports() -> list[Support]:
        return [
            Support(passage_id=pid, cross_lingual=False, coverage=1.0, semantic_z=2.0, logit=0.5)
            for pid in (first, second, other)
        ]

    alone = supports()
    answerer.judge.decide(alone)
    pooled = supports()
    answerer.judge.decide(pooled, twins)
    # three equal candidates and "none of them": each alone has e^.5 / (1 + 3 e^.5); the twins hold two shares
    assert alone[0].probability == alone[1].probability == alone[2].probability
    assert abs(pooled[0].probability - 2 * alone[0].probability) < 1e-3
    assert abs(pooled[1].probability - 2 * alone[1].probability) < 1e-3
    assert pooled[2].probability == alone[2].probability
