"""The demo corpora hold the facts the paper's traces reveal, and stay silent where the traces need silence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.retrieval.analysis import tokens
from engine.retrieval.corpus import load_corpus

from .conftest import CLEANING, REAL_ESTATE

EMAIL = re.compile(r"[\w.+-]+@[\w.-]+")


def _words(root: Path) -> set[str]:
    return {w for p in load_corpus(root).passages for w in tokens(p.indexed_text())}


@pytest.mark.parametrize("root", [REAL_ESTATE, CLEANING])
def test_corpora_are_silent_about_schools_and_viewings(root: Path) -> None:
    words = _words(root)
    forbidden = {w for w in words if w.startswith(("school", "colegio", "escuela", "viewing", "visit", "visita"))}
    assert forbidden == set()


@pytest.mark.parametrize("root", [REAL_ESTATE, CLEANING])
def test_contact_details_are_fictional_example_domains(root: Path) -> None:
    emails = {e for p in load_corpus(root).passages for e in EMAIL.findall(p.indexed_text())}
    assert emails, "a verified contact channel must be published"
    assert all(e.rstrip(".").endswith(".example.com") for e in emails if "." in e.split("@")[1].rstrip("."))


def test_real_estate_listings_cover_the_trace_facts() -> None:
    listings = [p for p in load_corpus(REAL_ESTATE).passages if p.kind == "record"]
    towns = {str(p.fields["town"]) for p in listings}
    assert {"Vera", "Mojácar", "Almería"} <= towns
    amenities = {a for p in listings for a in p.fields["amenities"]}  # type: ignore[union-attr]
    assert {"private pool", "parking", "garden", "terrace"} <= amenities
    assert any(p.fields["town"] == "Vera" and "private pool" in p.fields["amenities"] for p in listings)  # type: ignore[operator]
    assert any(p.fields.get("area") == "Macenas" for p in listings)
    for p in listings:
        assert isinstance(p.fields["price_eur"], int) and isinstance(p.fields["bedrooms"], int)


def test_real_estate_text_facts() -> None:
    words = _words(REAL_ESTATE)
    assert {"nie", "arras", "bank", "macenas", "beach", "fincas", "chalets", "profitability", "tourist"} <= words


def test_cleaning_text_facts() -> None:
    words = _words(CLEANING)
    assert {"almeria", "malaga", "granada", "oficinas", "hoteles", "industriales", "comunidades"} <= words
    assert {"marmol", "fachadas", "cristales", "hipoalergenicos", "supervision", "incidencia"} <= words
    text = " ".join(p.text for p in load_corpus(CLEANING).passages)
    assert "entre 2 y 5 días por semana" in text
