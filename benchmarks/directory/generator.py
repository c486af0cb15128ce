"""Synthetic benchmark queries for one directory, with gold constraints taken from its structured fields.

Family mix (as in the TRACE paper): 500 location-only, 200 eligibility, 200 open-hours, 10 recall-by-name and
90 combined queries. The generator shares no code path with the query parser: the wordings below are its own
templates (EN and ES), and each query's gold ``Constraints`` is built directly from a sampled record's
normalised fields (its city/county/ZIP, a parsed opening, an evidenced eligibility attribute, its name). Only
the *meaning* of a constraint is shared: ``constraints.check`` decides which records are relevant, and the
daypart windows ('evening' = 17:00-21:00) are read from the same rule file the product uses, as a definition.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from engine.directory.constraints import (
    Constraints,
    HoursConstraint,
    NameConstraint,
    PlaceConstraint,
    TimeCondition,
)
from engine.directory.directory_rules import DirectoryRules
from engine.directory.ingest import Directory
from engine.directory.models import Record, Slot
from engine.directory.normalize import key_tokens

FAMILY_MIX: tuple[tuple[str, int], ...] = (
    ("location", 500), ("eligibility", 200), ("hours", 200), ("recall", 10), ("combined", 90))
BASE_REFERENCE = datetime(2026, 3, 2, 9, 0)  # a Monday morning; dated queries move it
SPANISH_SHARE = 0.15

EN_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ES_DAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")

LOCATION_EN = (
    "food pantries in {loc}", "Where can I get free food in {loc}?", "I need groceries, I live in {loc}",
    "list the food banks near {loc}", "Are there any pantries around {loc}?", "help me find a food pantry in {loc}",
    "what pantries are there in {loc}?", "food assistance near {loc} please", "Is there a food bank in {loc}?",
    "I'm struggling to feed my kids... anything in {loc}?", "pantry near {loc}", "{loc} food pantries",
    "Which food pantries serve {loc}?", "can you show me pantries located in {loc}",
)
LOCATION_ES = (
    "despensas de comida en {loc}", "¿Dónde puedo conseguir comida gratis en {loc}?",
    "necesito ayuda con alimentos cerca de {loc}", "bancos de alimentos en {loc}",
    "¿Hay alguna despensa en {loc}?",
)
# 'near'/'close to' a ZIP asks for distance ranking (issue 13), so the exact-ZIP family says 'in'
ZIP_EN = ("food pantries in zip code {zip}", "pantries in {zip}", "I'm in {zip}, where can I get food?",
          "food bank in ZIP {zip}")
ZIP_ES = ("despensas en el código postal {zip}", "comida gratis en el {zip}")

ELIGIBILITY_EN = (
    "Are there food pantries {phrase} in {loc}?", "{phrase_sentence} Is there a pantry in {loc}?",
    "I need a food pantry in {loc} {phrase}", "pantries {phrase} near {loc}",
    "Do any pantries in {loc} help {audience}?",
)
ELIGIBILITY_ES = ("¿Hay despensas {phrase} en {loc}?", "busco una despensa en {loc} {phrase}")

HOURS_EN = (
    "Which pantries in {loc} are open {when}?", "food pantry in {loc} open {when}", "Is anything open {when} in {loc}?",
    "I can only go {when}. Any pantry in {loc}?", "pantries near {loc} that are open {when}",
)
HOURS_ES = ("¿Qué despensas en {loc} abren {when}?", "despensa en {loc} abierta {when}")

RECALL_EN = ("Tell me about {name}", "What are the hours for {name}?", "Where is {name} located?",
             "Can you give me the phone number of {name}?", "I'm looking for information on {name}",
             "{name} hours")
RECALL_ES = ("Información sobre {name}", "¿Cuál es el horario de {name}?")

COMBINED_EN = ("Any pantry in {loc} {phrase} that is open {when}?", "I need food in {loc} {when}, {phrase}",
               "pantries {phrase} in {loc} open {when}")
COMBINED_ES = ("¿Hay alguna despensa en {loc} {phrase} abierta {when}?",)

# Eligibility phrasings: (EN phrase after 'pantries', EN sentence, EN audience, ES phrase)
CONCEPT_WORDING: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "students": (("for college students", "that serve students", "for university students"),
                 ("I'm a college student.", "I am a student at the community college."),
                 ("students",), ("para estudiantes", "para estudiantes universitarios")),
    "seniors": (("for seniors", "for senior citizens", "for elderly people"),
                ("I'm a senior on a fixed income.", "My grandmother is elderly."),
                ("seniors", "older adults"), ("para adultos mayores", "para personas de la tercera edad")),
    "no_id": (("that don't require ID", "with no ID needed", "where I don't need identification"),
              ("I don't have an ID.", "I lost my photo ID."),
              ("people without ID",), ("sin identificación", "que no pidan identificación")),
    "residency_proof": (("that ask for proof of residency", "that require proof of address"),
                        ("I can bring proof of residency.", "Which ones need proof of address?"),
                        ("people with proof of residency",), ("que piden comprobante de domicilio",)),
    "no_residency_proof": (("with no proof of address needed", "without a residency requirement"),
                           ("I have no proof of address.",), ("people without proof of address",),
                           ("sin comprobante de domicilio",)),
    "tefap": (("that are TEFAP sites", "that distribute TEFAP commodities", "with USDA commodities"),
              ("I'm looking for a TEFAP distribution site.",), ("TEFAP recipients",),
              ("que sean sitios TEFAP",)),
    "appointment": (("that work by appointment", "where I can make an appointment"),
                    ("I'd rather book an appointment.",), ("people with an appointment",),
                    ("con cita previa",)),
    "walk_in": (("that take walk-ins", "where I can walk in without an appointment"),
                ("I can't make an appointment.",), ("walk-ins",), ("sin cita",)),
    "families": (("for families with kids", "that help families with children"),
                 ("We are a family with young children looking for help.",), ("families with children",),
                 ("para familias con niños",)),
    "veterans": (("for veterans", "serving military veterans"), ("I'm a veteran.",), ("veterans",),
                 ("para veteranos",)),
    "unhoused": (("for homeless people", "for people experiencing homelessness"), ("I'm homeless right now.",),
                 ("homeless people",), ("para personas sin hogar",)),
    "hot_meals": (("with hot meals", "that serve hot meals"), ("I need a hot meal.",),
                  ("people who need a hot meal",), ("con comidas calientes",)),
    "drive_thru": (("with drive-thru pickup", "with a drive through"), ("I'd like to stay in my car.",),
                   ("people who drive up",), ("con servicio para recoger en auto",)),
    "delivery": (("that do home delivery", "that deliver groceries"), ("I'm homebound.",),
                 ("homebound people",), ("con entrega a domicilio",)),
}

DAYPART_WORDING = {"morning": (("in the morning",), ("por la mañana",)),
                   "afternoon": (("in the afternoon",), ("por la tarde",)),
                   "evening": (("in the evening",), ("por la noche",))}


@dataclass(frozen=True)
class BenchQuery:
    id: str
    family: str
    text: str
    gold: Constraints
    reference: datetime
    language: str


def _clock(minute: int, spanish: bool, rng: random.Random) -> str:
    hour, rest = divmod(minute, 60)
    if spanish:
        shown = hour % 12 or 12
        part = "de la mañana" if hour < 12 else ("de la tarde" if hour < 19 else "de la noche")
        return f"{shown}:{rest:02d} {part}" if rest else f"{shown} {part}"
    shown = hour % 12 or 12
    suffix = rng.choice(("am", "a.m.", "AM")) if hour < 12 else rng.choice(("pm", "p.m.", "PM"))
    if rest:
        return f"{shown}:{rest:02d} {suffix}"
    return rng.choice((f"{shown}{suffix}", f"{shown} {suffix}", f"{shown}:00 {suffix}"))


class Generator:
    def __init__(self, directory: Directory, rules: DirectoryRules, seed: int) -> None:
        self.directory = directory
        self.records = directory.records
        self.rng = random.Random(seed)
        self.dayparts = {p.id: (p.start, p.end) for p in rules.time.dayparts if p.id in DAYPART_WORDING}

    # ------------------------------------------------------------------ places
    def _place(self, record: Record, spanish: bool, allow_zip: bool = True) -> tuple[PlaceConstraint, str] | None:
        options = []
        if record.city_key and record.city:
            options += ["city"] * 11
        if record.counties:
            options += ["county"] * 6
        if record.zip and allow_zip:
            options += ["zip"] * 3
        if not options:
            return None
        kind = self.rng.choice(options)
        if kind == "city":
            assert record.city and record.city_key
            return PlaceConstraint("city", record.city_key, record.city), record.city
        if kind == "county":
            j = self.rng.randrange(len(record.counties))
            display = record.counties[j]
            surface = display
            if spanish and display.endswith(" County"):
                surface = f"el condado de {display[:-len(' County')]}"
            return PlaceConstraint("county", record.county_keys[j], display), surface
        assert record.zip
        return PlaceConstraint("zip", record.zip, record.zip), record.zip

    # ------------------------------------------------------------------ hours
    def _timed_slots(self, record: Record) -> list[Slot]:
        return [s for s in record.schedule.slots if s.start is not None]

    def _condition(self, slot: Slot, spanish: bool) -> tuple[TimeCondition | None, str]:
        assert slot.start is not None
        choices = ["none", "before", "at", "daypart"]
        if slot.end is not None:
            choices += ["after", "after"]
        choice = self.rng.choice(choices)
        if choice == "after" and slot.end is not None:
            minute = ((slot.end - 1) // 60) * 60
            word = "después de las" if spanish else self.rng.choice(("after", "after", "later than"))
            return TimeCondition("after", minute), f"{word} {_clock(minute, spanish, self.rng)}"
        if choice == "before":
            minute = (slot.start // 60 + 1) * 60
            if minute >= 24 * 60:
                return None, ""
            word = "antes de las" if spanish else "before"
            return TimeCondition("before", minute), f"{word} {_clock(minute, spanish, self.rng)}"
        if choice == "at":
            minute = slot.start
            if slot.end is not None and minute % 30 == 0 and minute + 30 < slot.end and self.rng.random() < 0.5:
                minute += 30
            word = "a las" if spanish else self.rng.choice(("at", "around"))
            return TimeCondition("at", minute), f"{word} {_clock(minute, spanish, self.rng)}"
        if choice == "daypart":
            fits = [pid for pid, (a, b) in self.dayparts.items()
                    if (slot.end is None and a <= slot.start < b) or (slot.end is not None and slot.start < b
                                                                      and slot.end > a)]
            if fits:
                pid = self.rng.choice(fits)
                a, b = self.dayparts[pid]
                words = DAYPART_WORDING[pid][1 if spanish else 0]
                return TimeCondition("window", a, b), self.rng.choice(words)
        return None, ""

    def _when(self, record: Record, spanish: bool) -> tuple[HoursConstraint, str, datetime] | None:
        slots = self._timed_slots(record)
        if not slots:
            return None
        slot = self.rng.choice(slots)
        condition, cond_text = self._condition(slot, spanish)
        conditions = (condition,) if condition is not None else ()
        days = ES_DAYS if spanish else EN_DAYS
        dated = not slot.irregular and not record.schedule.seasonal and self.rng.random() < 0.4
        if dated:
            when = self._date_for(slot)
            if when is not None:
                mode = self.rng.choice(("tomorrow", "today", "this"))
                if mode == "tomorrow":
                    reference = datetime.combine(when - timedelta(days=1), BASE_REFERENCE.time())
                    word = "mañana" if spanish else "tomorrow"
                elif mode == "today":
                    reference = datetime.combine(when, datetime.min.time()).replace(hour=7)
                    word = "hoy" if spanish else "today"
                else:
                    reference = datetime.combine(when - timedelta(days=self.rng.randint(1, 6)),
                                                 BASE_REFERENCE.time())
                    word = f"este {days[slot.day]}" if spanish else f"this {days[slot.day]}"
                text = f"{word} {cond_text}".strip()
                return HoursConstraint(dates=(when,), conditions=conditions), text, reference
        day = days[slot.day]
        if spanish:
            word = self.rng.choice((f"los {day}s" if not day.endswith("s") else f"los {day}", f"el {day}"))
        else:
            word = self.rng.choice((f"on {day}s", f"on {day}", f"every {day}", day))
        text = f"{word} {cond_text}".strip()
        return HoursConstraint(days=frozenset({slot.day}), conditions=conditions), text, BASE_REFERENCE

    def _date_for(self, slot: Slot) -> date | None:
        start = BASE_REFERENCE.date() + timedelta(days=self.rng.randint(1, 20))
        for offset in range(70):
            when = start + timedelta(days=offset)
            if slot.opens_on_date(when):
                return when
        return None

    # ------------------------------------------------------------------ families
    def _concept_pairs(self) -> list[tuple[Record, str]]:
        return [(r, c) for r in self.records for c in r.attributes if c in CONCEPT_WORDING]

    def _concept_text(self, concept: str, spanish: bool) -> tuple[str, str, str]:
        phrases, sentences, audiences, es = CONCEPT_WORDING[concept]
        if spanish:
            phrase = self.rng.choice(es)
            return phrase, phrase, phrase
        return self.rng.choice(phrases), self.rng.choice(sentences), self.rng.choice(audiences)

    def location(self) -> tuple[str, Constraints, datetime, bool] | None:
        record = self.rng.choice(self.records)
        spanish = self.rng.random() < SPANISH_SHARE
        placed = self._place(record, spanish)
        if placed is None:
            return None
        place, surface = placed
        if place.kind == "zip":
            text = self.rng.choice(ZIP_ES if spanish else ZIP_EN).format(zip=surface)
        else:
            template = self.rng.choice(LOCATION_ES if spanish else LOCATION_EN)
            text = template.format(loc=surface)
            if not spanish and self.rng.random() < 0.12 and not template.startswith("{loc}"):
                text = text.lower()
        return text, Constraints(places=(place,)), BASE_REFERENCE, spanish

    def eligibility(self) -> tuple[str, Constraints, datetime, bool] | None:
        pairs = self._concept_pairs()
        if not pairs:
            return None
        record, concept = self.rng.choice(pairs)
        spanish = self.rng.random() < SPANISH_SHARE
        placed = self._place(record, spanish, allow_zip=False)
        if placed is None:
            return None
        place, surface = placed
        phrase, sentence, audience = self._concept_text(concept, spanish)
        template = self.rng.choice(ELIGIBILITY_ES if spanish else ELIGIBILITY_EN)
        text = template.format(loc=surface, phrase=phrase, phrase_sentence=sentence, audience=audience)
        return text, Constraints(places=(place,), concepts=(concept,)), BASE_REFERENCE, spanish

    def hours(self) -> tuple[str, Constraints, datetime, bool] | None:
        timed = [r for r in self.records if self._timed_slots(r)]
        spanish = self.rng.random() < SPANISH_SHARE
        if timed:
            record = self.rng.choice(timed)
            when = self._when(record, spanish)
            assert when is not None
            hours, when_text, reference = when
        else:
            # no opening hours anywhere in this directory: the honest answer is a no-match
            record = self.rng.choice(self.records)
            day = self.rng.randrange(7)
            hours = HoursConstraint(days=frozenset({day}))
            when_text = f"el {ES_DAYS[day]}" if spanish else f"on {EN_DAYS[day]}"
            reference = BASE_REFERENCE
        placed = self._place(record, spanish, allow_zip=False)
        if placed is None:
            return None
        place, surface = placed
        text = self.rng.choice(HOURS_ES if spanish else HOURS_EN).format(loc=surface, when=when_text)
        return text, Constraints(places=(place,), hours=hours), reference, spanish

    def recall(self) -> tuple[str, Constraints, datetime, bool] | None:
        record = self.rng.choice(self.records)
        spanish = self.rng.random() < SPANISH_SHARE
        key = key_tokens(record.name)
        while len(key) > 1 and key[0] in ("the", "el", "la"):
            key = key[1:]  # 'The Salvation Army' names every 'Salvation Army' entry too
        if not key:
            return None
        text = self.rng.choice(RECALL_ES if spanish else RECALL_EN).format(name=record.name)
        places: tuple[PlaceConstraint, ...] = ()
        if record.city and record.city_key and self.rng.random() < 0.3:
            text += f" en {record.city}" if spanish else f" in {record.city}"
            places = (PlaceConstraint("city", record.city_key, record.city),)
        return text, Constraints(places=places, names=(NameConstraint(key, record.name),)), BASE_REFERENCE, spanish

    def combined(self) -> tuple[str, Constraints, datetime, bool] | None:
        spanish = self.rng.random() < SPANISH_SHARE
        both = [(r, c) for r, c in self._concept_pairs() if self._timed_slots(r)]
        if both:
            record, concept = self.rng.choice(both)
            when = self._when(record, spanish)
            assert when is not None
            hours, when_text, reference = when
        else:
            pairs = self._concept_pairs()
            if not pairs:
                return None
            record, concept = self.rng.choice(pairs)
            day = self.rng.randrange(7)
            hours = HoursConstraint(days=frozenset({day}))
            when_text = f"el {ES_DAYS[day]}" if spanish else f"on {EN_DAYS[day]}"
            reference = BASE_REFERENCE
        placed = self._place(record, spanish, allow_zip=False)
        if placed is None:
            return None
        place, surface = placed
        phrase, _, _ = self._concept_text(concept, spanish)
        text = self.rng.choice(COMBINED_ES if spanish else COMBINED_EN).format(loc=surface, phrase=phrase,
                                                                               when=when_text)
        gold = Constraints(places=(place,), hours=hours, concepts=(concept,))
        return text, gold, reference, spanish


def generate(directory: Directory, rules: DirectoryRules, seed: int = 0,
             mix: tuple[tuple[str, int], ...] = FAMILY_MIX) -> list[BenchQuery]:
    """Deterministic for (directory, seed): the same queries and gold every time."""
    generator = Generator(directory, rules, seed)
    queries: list[BenchQuery] = []
    for family, count in mix:
        make = getattr(generator, family)
        produced = 0
        attempts = 0
        while produced < count and attempts < count * 20:
            attempts += 1
            item = make()
            if item is None:
                continue
            text, gold, reference, spanish = item
            queries.append(BenchQuery(f"{family}-{produced:04d}", family, text, gold, reference,
                                      "es" if spanish else "en"))
            produced += 1
    return queries
