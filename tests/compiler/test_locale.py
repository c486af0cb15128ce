"""Locale: flags first, then what the intent (or corpus) says; never a silent default."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.errors import CompileError
from engine.compiler.model import CompileInput
from engine.kernel.goal_models import Locale

ASKS = "we want to know their budget, the preferred date and a phone number."


def _locale(compiler: DeterministicCompiler, intent: str, **flags: str) -> Locale | None:
    return compiler.compile(CompileInput(intent=intent, language="en", **flags)).spec.locale


@pytest.mark.parametrize(("intent", "expected"), [
    (f"We are a dental clinic in Chicago; {ASKS}", ("USD", "US", "America/Chicago")),
    (f"A bakery in Mexico City: {ASKS}", ("MXN", "MX", "America/Mexico_City")),
    (f"Our shop in Spain sells bikes, {ASKS}", ("EUR", "ES", "Europe/Madrid")),
    (f"Our London venue quotes in GBP; {ASKS}", ("GBP", "GB", "Europe/London")),
])
def test_the_intent_names_the_locale(compiler: DeterministicCompiler, intent: str,
                                     expected: tuple[str, str, str]) -> None:
    locale = _locale(compiler, intent)
    assert locale is not None and (locale.currency, locale.phone_region, locale.time_zone) == expected


def test_flags_win_and_a_region_implies_its_currency(compiler: DeterministicCompiler) -> None:
    locale = _locale(compiler, f"We are a dental clinic in Chicago; {ASKS}", currency="EUR")
    assert locale is not None and (locale.currency, locale.phone_region) == ("EUR", "US")
    with pytest.raises(CompileError) as info:  # the US has several zones: the date needs --time-zone
        _locale(compiler, f"We sell bikes; {ASKS}", phone_region="US")
    assert info.value.code == "compile.locale_missing" and "--time-zone" in info.value.message
    assert "--currency" not in info.value.message  # US -> USD
    locale = _locale(compiler, f"We sell bikes; {ASKS}", phone_region="US", time_zone="America/Denver")
    assert locale is not None and locale.currency == "USD"


@pytest.mark.parametrize("intent", [
    f"Prices in $ only; {ASKS}",  # a dollar of which country?
    f"We sell turkey sandwiches in Georgia; {ASKS}",  # a common word and a US state, not a country
])
def test_an_ambiguous_or_absent_locale_is_refused_with_the_flags_to_give(compiler: DeterministicCompiler,
                                                                        intent: str) -> None:
    with pytest.raises(CompileError) as info:
        _locale(compiler, intent)
    assert info.value.code == "compile.locale_missing"
    assert all(flag in info.value.message for flag in ("--currency", "--phone-region", "--time-zone"))


def test_only_what_the_objectives_need_is_required(compiler: DeterministicCompiler) -> None:
    spec = compiler.compile(CompileInput(intent="We want to know the reason for the visit and their email.",
                                         language="en")).spec
    assert spec.locale is None  # free text and e-mail need no locale


def test_a_corpus_city_named_like_a_country_is_not_that_country(compiler: DeterministicCompiler,
                                                              tmp_path: Path) -> None:
    (tmp_path / "zonas.md").write_text("Limpiamos oficinas en Málaga, Almería y Granada.", encoding="utf-8")
    with pytest.raises(CompileError) as info:  # "Granada" is not Grenada: still nothing known
        compiler.compile(CompileInput(intent="Queremos saber el presupuesto y un teléfono.", language="es",
                                      corpus_dir=tmp_path))
    assert info.value.code == "compile.locale_missing"


def test_a_withdrawn_currency_code_in_the_documents_is_a_name_not_the_currency(compiler: DeterministicCompiler,
                                                                            tmp_path: Path) -> None:
    # 'ADP' is a payroll provider here and the withdrawn Andorran peseta in ISO 4217: never a company's currency.
    (tmp_path / "integrations.md").write_text("We import payroll history from ADP Workforce Now and Gusto.",
                                              encoding="utf-8")
    locale = compiler.compile(CompileInput(intent=f"We sell payroll software; {ASKS}", language="en",
                                           corpus_dir=tmp_path, phone_region="US",
                                           time_zone="America/Chicago")).spec.locale
    assert locale is not None and locale.currency == "USD"
    (tmp_path / "prices.md").write_text("Plans start at 40 EUR a month.", encoding="utf-8")
    locale = compiler.compile(CompileInput(intent=f"We sell payroll software; {ASKS}", language="en",
                                           corpus_dir=tmp_path, phone_region="US",
                                           time_zone="America/Chicago")).spec.locale
    assert locale is not None and locale.currency == "EUR"  # a code in use still counts
