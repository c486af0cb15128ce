"""Temporal mentions in EN/ES/FR, resolved against a fixed reference (Wednesday 10 March 2027, UTC): the
span quotes the visitor's exact words and the values follow the grammar of spec/adr/0003 §3."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.kernel.validators.temporal import parse_value
from tests.proposer.temporal_support import analysis_of, mentions, objective, readings, spec_with

CASES = [
    # absolute and relative dates
    ("en", "We'd like to come next Tuesday afternoon", "next Tuesday afternoon", "2027-03-16Tafternoon"),
    ("en", "Is the 14th of June free", "14th of June", "2027-06-14"),
    ("en", "Sometime mid-March would suit us", "mid-March", "2027-03-11/2027-03-20"),
    ("en", "We could do tomorrow", "tomorrow", "2027-03-11"),
    ("en", "This Friday works", "This Friday", "2027-03-12"),
    ("en", "We want to book 4 September 2027 for 170 guests", "4 September 2027", "2027-09-04"),
    ("en", "September the 4th, 2027 is our date", "September the 4th, 2027", "2027-09-04"),
    ("en", "Monday 15th of March at 11am", "Monday 15th of March at 11am", "2027-03-15T11:00"),
    ("es", "Podría el jueves que viene", "jueves que viene", "2027-03-11"),
    ("es", "Mejor pasado mañana", "pasado mañana", "2027-03-12"),
    ("es", "Queremos casarnos el 14 de junio de 2027", "14 de junio de 2027", "2027-06-14"),
    ("fr", "Le mardi 14 juin à 17h", "Le mardi 14 juin à 17h", "2027-06-14T17:00"),
    ("fr", "Ce serait pour demain matin", "demain matin", "2027-03-11Tmorning"),
    # combined date and time
    ("en", "Next Tuesday at 5pm please", "Next Tuesday at 5pm", "2027-03-16T17:00"),
    ("es", "pasado mañana a las cinco y media", "pasado mañana a las cinco y media", "2027-03-12T17:30"),
    ("es", "el jueves que viene por la tarde", "jueves que viene por la tarde", "2027-03-11Tafternoon"),
    ("es", "mañana por la mañana", "mañana por la mañana", "2027-03-11Tmorning"),
    # times and parts of day
    ("en", "Any time after 17:30", "after 17:30", "17:30"),
    ("en", "5pm suits me", "5pm", "17:00"),
    ("en", "At half past five", "At half past five", "17:30"),
    ("es", "a las cinco y media", "a las cinco y media", "17:30"),
    ("fr", "Je peux passer à 17h30", "à 17h30", "17:30"),
    ("en", "Preferably in the morning", "in the morning", "morning"),
    ("es", "Mejor por la tarde", "por la tarde", "afternoon"),
    ("fr", "Plutôt le soir", "le soir", "evening"),
    ("en", "at 5 in the afternoon", "at 5 in the afternoon", "17:00"),
    # ranges
    ("en", "between the 3rd and the 5th", "between the 3rd and the 5th", "2027-04-03/2027-04-05"),
    ("es", "del 3 al 5 de junio", "del 3 al 5 de junio", "2027-06-03/2027-06-05"),
    ("fr", "du 3 au 5 juin", "du 3 au 5 juin", "2027-06-03/2027-06-05"),
    ("en", "from 2 to 4pm", "from 2 to 4pm", "14:00-16:00"),
    ("fr", "de 14h à 16h", "de 14h à 16h", "14:00-16:00"),
    ("en", "14:00-16:00 is best", "14:00-16:00", "14:00-16:00"),
    # weekly schedules
    ("en", "weekday evenings are best", "weekday evenings", "weekly:mon,tue,wed,thu,fri@evening"),
    ("en", "Tuesdays and Thursdays after work", "Tuesdays and Thursdays after work", "weekly:tue,thu@evening"),
    ("es", "martes y jueves por la tarde", "martes y jueves por la tarde", "weekly:tue,thu@afternoon"),
    ("es", "Solo puedo los fines de semana", "los fines de semana", "weekly:sat,sun"),
    ("en", "every Monday morning", "every Monday morning", "weekly:mon@morning"),
    ("fr", "tous les lundis matin", "tous les lundis matin", "weekly:mon@morning"),
    # time frames
    ("en", "We plan to buy within three months", "within three months", "within:P3M"),
    ("en", "Probably next quarter", "next quarter", "period:2027-04-01/2027-06-30"),
    ("en", "in the next few weeks", "in the next few weeks", "within:P3W"),
    ("es", "antes de verano", "antes de verano", "before:2027-06-21"),
    ("es", "lo antes posible", "lo antes posible", "asap"),
    ("en", "ASAP please", "ASAP", "asap"),
    ("en", "by the end of the year", "by the end of the year", "before:2027-12-31"),
    ("en", "this spring", "this spring", "period:2027-03-20/2027-06-20"),
    ("en", "in 2 weeks", "in 2 weeks", "within:P2W"),
    ("fr", "dans trois mois", "dans trois mois", "within:P3M"),
    ("fr", "la semaine prochaine", "la semaine prochaine", "period:2027-03-15/2027-03-21"),
    ("en", "before Christmas", "before Christmas", "before:2027-12-25"),
    ("en", "Decision in Q3 2027", "Q3 2027", "period:2027-07-01/2027-09-30"),
]


@pytest.mark.parametrize(("language", "text", "span", "value"), CASES)
def test_mentions(language: str, text: str, span: str, value: str) -> None:
    found = readings(text, language)
    assert (span, value) in [(quote, values[0]) for quote, values in found], found
    assert text.find(span) >= 0  # the span quotes the visitor's exact text
    parse_value(value)  # every value follows the grammar


@pytest.mark.parametrize(("language", "text"), [
    ("en", "Call me on 555-123-4567"),
    ("en", "My number is +44 20 7946 0958"),
    ("es", "Tenemos un presupuesto de 350.000 euros"),
    ("en", "We expect 170 guests"),
    ("en", "We need 3 bedrooms and 2 bathrooms"),
    ("en", "Budget around 40k"),
    ("en", "around 200 people"),
    ("es", "Somos 4 personas"),
    ("en", "It costs 3.50"),
    ("en", "at 5 with my wife"),  # a bare 'at 5' followed by an ordinary word is not read as a time
])
def test_not_temporal(language: str, text: str) -> None:
    assert readings(text, language) == []


def test_dense_message_keeps_date_apart_from_counts_and_money() -> None:
    text = "We want to book 4 September 2027 for 170 guests, budget around 40k"
    assert readings(text) == [("4 September 2027", ("2027-09-04",))]


@pytest.mark.parametrize(("region", "value"), [("US", "2027-04-05"), ("GB", "2027-05-04"), (None, "2027-05-04")])
def test_numeric_dates_follow_the_locale(region: str | None, value: str) -> None:
    spec = spec_with(objective("day", "date", 1), region=region)
    assert readings("04/05 would be perfect", "en", spec)[0][1] == (value,)


def test_spanish_numeric_dates_are_day_first() -> None:
    spec = spec_with(objective("dia", "date", 1), language="es", region="ES")
    assert readings("El 12/06/2027 nos va bien", "es", spec)[0][1] == ("2027-06-12",)


def test_reference_time_is_read_in_the_company_time_zone() -> None:
    late_utc = datetime(2027, 3, 10, 23, 30, tzinfo=UTC)  # already Thursday in Madrid
    madrid = spec_with(objective("dia", "date", 1), language="es", zone="Europe/Madrid")
    utc = spec_with(objective("dia", "date", 1), language="es", zone="UTC")
    assert mentions("mañana", "es", madrid, late_utc)[0].values == ("2027-03-12",)
    assert mentions("mañana", "es", utc, late_utc)[0].values == ("2027-03-11",)


def test_no_reference_time_uses_now() -> None:
    analysis = analysis_of("tomorrow", "en")
    from llm_adapters.offline.temporal import temporal_mentions

    found = temporal_mentions(analysis)
    assert len(found) == 1 and parse_value(found[0].values[0]).kind == "date"


def test_schedules_also_offer_their_time() -> None:
    assert readings("Tuesdays and Thursdays after work")[0][1] == ("weekly:tue,thu@evening", "evening")


def test_lone_month_and_one_word_part_of_day_are_weak() -> None:
    assert [m.weak for m in mentions("I may come")] == [True]
    assert [m.weak for m in mentions("Good morning!")] == [True]
    assert [m.weak for m in mentions("in the morning")] == [False]


def test_mentions_are_computed_once_per_message() -> None:
    analysis = analysis_of("next Tuesday at 5pm", "en")
    from llm_adapters.offline.temporal import temporal_mentions

    assert temporal_mentions(analysis, datetime(2027, 3, 10, tzinfo=UTC)) is temporal_mentions(
        analysis, datetime(2027, 3, 10, 8, tzinfo=UTC))


def test_dateparser_reads_a_month_name_date_our_patterns_leave_half_read() -> None:
    assert readings("June (4) would be ideal") == [("June (4)", ("2027-06-04",))]


def test_a_month_and_a_day_number_in_one_expression_make_a_date() -> None:
    assert readings("June 2027, the 4th") == [("June 2027, the 4th", ("2027-06-04",))]


@pytest.mark.parametrize(("language", "text", "value"), [
    ("es", "el 5 de mayo a las 12", "2027-05-05T12:00"),  # 'mayo a las 12' is a month and a time, not 12 May
    ("es", "de 5 a 7 de la tarde", "17:00-19:00"),
    ("es", "el próximo mes de junio", "period:2027-06-01/2027-06-30"),
    ("es", "en junio del año que viene", "period:2028-06-01/2028-06-30"),
    ("es", "en unos meses", "within:P3M"),  # 'unos' is a few, not one
    ("en", "two weeks from now", "within:P2W"),
    ("en", "7.30pm", "19:30"),
    ("fr", "en fin de journée", "evening"),
    ("en", "Tuesday or Wednesday", "2027-03-16"),  # alternatives, not a weekly schedule
    ("en", "Saturday mornings", "weekly:sat@morning"),
    ("fr", "dans les deux prochaines semaines", "within:P2W"),
    ("en", "7 in the evening", "19:00"),
    ("en", "quarter to 1 in the afternoon", "12:45"),
    ("en", "the 12th of this month", "2027-03-12"),
    ("en", "Monday next week", "2027-03-15"),
])
def test_more_phrasings(language: str, text: str, value: str) -> None:
    assert readings(text, language)[0][1][0] == value


@pytest.mark.parametrize(("language", "text", "values"), [
    ("en", "in 3 days", ("within:P3D", "2027-03-13")),  # a point in time: also that day
    ("en", "within 3 days", ("within:P3D",)),  # a deadline only
    ("en", "in the next month", ("within:P1M",)),  # a singular unit counts one
    ("en", "in the coming weeks", ("within:P3W",)),  # a plural one counts a few
    ("es", "dentro de dos semanas", ("within:P2W", "2027-03-24")),
])
def test_durations(language: str, text: str, values: tuple[str, ...]) -> None:
    assert readings(text, language)[0][1] == values
