"""HTML pages and PDF brochures as corpus documents: chrome is dropped, sections follow headings, citations
carry a label a person recognises (page or document title and heading), ids stay internal."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.rag_sets.make_pdfs import parse_source, pdf_bytes
from engine.kernel.ports import Citation
from engine.retrieval import build_answerer
from engine.retrieval.corpus import load_corpus
from engine.retrieval.errors import CorpusError
from engine.retrieval.html import parse_html
from engine.retrieval.pdf import parse_pdf
from tests.retrieval.project_rules import project_rules

from .conftest import CorpusFactory

PAGE = """<!doctype html><html lang="es"><head><title>Tarifas | Taller Ejemplo</title>
<style>p { color: red }</style><script>var tracking = "nav secret";</script></head>
<body><nav><a href="/">Inicio</a> <a href="/contacto">Contacto</a></nav>
<main><h1>Tarifas</h1><p>Precios con IVA incluido.</p>
<h2>Cambio de neumáticos</h2><p>Cambiar un neumático cuesta <strong>18 €</strong> por rueda.</p>
<h3>Equilibrado</h3><ul><li>Equilibrado: 6 €</li><li>Válvula nueva: 2 €</li></ul>
<h2>Horario</h2><div>De lunes a viernes <em>de 8:00 a 18:00</em>.</div></main>
<aside>Suscríbete al boletín</aside><footer>© 2026 Taller Ejemplo · Aviso legal</footer></body></html>"""


def test_html_sections_come_from_headings_without_page_chrome() -> None:
    doc = parse_html(PAGE, default_title="tarifas")
    assert doc.title == "Tarifas | Taller Ejemplo" and doc.language == "es"
    by_title = {s.title: s for s in doc.sections}
    assert list(by_title) == ["Tarifas", "Cambio de neumáticos", "Equilibrado", "Horario"]
    assert by_title["Cambio de neumáticos"].body() == "Cambiar un neumático cuesta 18 € por rueda."
    assert by_title["Equilibrado"].body() == "- Equilibrado: 6 €\n- Válvula nueva: 2 €"
    assert by_title["Equilibrado"].path == ["Tarifas", "Cambio de neumáticos", "Equilibrado"]
    assert by_title["Horario"].body() == "De lunes a viernes de 8:00 a 18:00."
    text = " ".join(s.body() for s in doc.sections)
    for chrome in ("Inicio", "tracking", "color", "boletín", "Aviso legal"):
        assert chrome not in text


def test_html_passages_have_human_labels_and_internal_ids(make_corpus: CorpusFactory) -> None:
    corpus = load_corpus(make_corpus({"web/tarifas.html": PAGE}, default_language="en"))
    passage = next(p for p in corpus.passages if p.title == "Equilibrado")
    assert passage.id == "web/tarifas.html#equilibrado"
    assert passage.language == "es"  # from <html lang>
    assert passage.label == "Tarifas | Taller Ejemplo › Cambio de neumáticos › Equilibrado"
    assert "#" not in passage.label and ".html" not in passage.label


BROCHURE = """# Academia Ejemplo
## Cursos de verano
Los cursos de verano duran cuatro semanas y empiezan el primer lunes de julio. Las clases son por la mañana, de
lunes a viernes, y cada grupo tiene como máximo ocho alumnos para que todos puedan hablar en cada sesión de clase.
---
## Precios
El curso completo cuesta 320 euros.
## Contacto
Calle Mayor 5, Teruel.
"""


def test_pdf_sections_come_from_heading_lines_across_pages(tmp_path: Path) -> None:
    title, pages = parse_source(BROCHURE)
    doc = parse_pdf(pdf_bytes(pages, title), "folleto.pdf", default_title="folleto")
    assert doc.title == "Academia Ejemplo"
    by_title = {s.title: s for s in doc.sections}
    assert list(by_title) == ["Cursos de verano", "Precios", "Contacto"]
    # the line the PDF wrapped is one sentence again
    assert (
        "cada grupo tiene como máximo ocho alumnos para que todos puedan hablar" in by_title["Cursos de verano"].body()
    )
    assert by_title["Cursos de verano"].page == 1 and by_title["Precios"].page == 2
    assert by_title["Precios"].body() == "El curso completo cuesta 320 euros."


def test_pdf_in_a_corpus_is_answerable_and_cited_by_label(make_corpus: CorpusFactory, embedding_cache: Path) -> None:
    title, pages = parse_source(BROCHURE)
    root = make_corpus(
        {"intro.md": "# Academia\n\n## ¿Quiénes somos?\n\nUna academia de idiomas en Teruel.\n"}, default_language="es"
    )
    (root / "folleto.pdf").write_bytes(pdf_bytes(pages, title))
    corpus = load_corpus(root)
    precios = next(p for p in corpus.passages if p.title == "Precios")
    assert precios.id == "folleto.pdf#precios" and precios.label == "Academia Ejemplo › Precios"
    assert precios.fields == {"page": 2}
    answerer = build_answerer(root, rules=project_rules(), cache_dir=embedding_cache)
    answer = answerer.answer("¿Cuánto cuesta el curso completo?", "es")
    # answered, or (the model under answering.answer_min_probability) the section's sentences quoted as related
    assert answer.kind in ("answer", "related") and "320 euros" in answer.text
    assert answer.citations[0].passage_id == "folleto.pdf#precios"


def test_unreadable_pdf_is_a_coded_corpus_error(make_corpus: CorpusFactory) -> None:
    root = make_corpus({"a.md": "# A\n\n## B\n\ntext\n"})
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    with pytest.raises(CorpusError) as info:
        load_corpus(root)
    assert info.value.code == "retrieval.corpus.pdf"


def test_citations_name_the_page_and_section_never_the_id(make_corpus: CorpusFactory, embedding_cache: Path) -> None:
    """What a visitor is shown for a citation is the document title and section heading (records: the record
    file's name and the record's title); an answerer that sets no label still shows no passage id."""
    root = make_corpus(
        {
            "faq.md": "# Opening times\n\n## When are you open?\n\nWe are open from 9:00 to 17:00 on weekdays.\n",
            "boats.csv": "id,name,description\nB-7,Blue Heron,A 6 metre sailing boat for four people.\n",
        },
        records={"boats.csv": {"id_field": "id", "title_field": "name"}},
    )
    corpus = load_corpus(root)
    labels = {p.id: p.label for p in corpus.passages}
    assert labels == {
        "faq.md#when-are-you-open": "Opening times › When are you open?",
        "boats.csv#B-7": "boats › Blue Heron",
    }
    answer = build_answerer(root, rules=project_rules(), cache_dir=embedding_cache).answer("When are you open?", "en")
    assert answer.supported
    assert [c.shown() for c in answer.citations] == ["Opening times › When are you open?"]
    bare = Citation(source="docs/price-list.v2.md", passage_id="docs/price-list.v2.md#offers", quote="x")
    assert bare.shown() == "price list"
