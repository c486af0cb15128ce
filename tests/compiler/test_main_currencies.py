"""A country's main currency (rules/compiler.json ``locale.main_currencies``), re-derived from the installed CLDR.

Where CLDR lists several current legal tenders for a territory, the currency the territory issues (its ISO 4217
code begins with the territory's ISO 3166 code) is its main one; the rule data lists exactly the territories whose
CLDR first tender is another one (a common monetary area: Namibia, Lesotho; Bhutan). Any difference between the
rule data and this derivation (a CLDR update, a hand edit) fails here, naming the territory.
"""

from __future__ import annotations

import babel.core
import babel.numbers
import pytest

from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.locale import main_currency


def _derived() -> dict[str, str]:
    derived: dict[str, str] = {}
    for territory in sorted(babel.core.get_global("territory_currencies")):
        tenders = babel.numbers.get_territory_currencies(territory, tender=True)
        issued = [code for code in tenders if code.startswith(territory)]
        if len(tenders) > 1 and len(issued) == 1 and tenders[0] != issued[0]:
            derived[territory] = issued[0]
    return derived


def test_the_rule_data_is_the_cldr_derivation(compiler_rules: CompilerRules) -> None:
    assert compiler_rules.locale.main_currencies == _derived()


def test_the_derivation_finds_the_common_monetary_area() -> None:
    # the rand is legal tender in Namibia and Lesotho beside their own currencies; CLDR lists it first
    derived = _derived()
    assert derived["NA"] == "NAD" and derived["LS"] == "LSL"
    assert "ZA" not in derived


TERRITORIES = sorted(t for t in babel.core.get_global("territory_currencies")
                     if babel.numbers.get_territory_currencies(t, tender=True))


@pytest.mark.parametrize("territory", TERRITORIES)
def test_the_main_currency_is_a_current_tender_of_the_country(compiler_rules: CompilerRules,
                                                              territory: str) -> None:
    tenders = babel.numbers.get_territory_currencies(territory, tender=True)
    currency = main_currency(territory, compiler_rules.locale)
    assert currency in tenders
    own = [code for code in tenders if code.startswith(territory)]
    if len(own) == 1:
        assert currency == own[0]
