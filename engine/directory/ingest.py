"""Ingestion: a directory file + its field mapping -> normalised ``Record`` list (``source_index`` kept)."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog
from rapidfuzz import fuzz

from engine.directory.address import AddressParser, County
from engine.directory.directory_rules import DirectoryRules
from engine.directory.errors import DirectoryFileError, DirectoryRulesError, MappingError
from engine.directory.geo_cache import us_places
from engine.directory.hours import HoursParser
from engine.directory.mapping import Mapping, get_path, load_mapping, tag_values, values
from engine.directory.models import SERVED_ZIP, Evidence, Record, Schedule
from engine.directory.normalize import clean, display_case, key_tokens, place_key
from engine.directory.semantic import ConceptMatcher, split_passages
from engine.directory.zip_fill import add_zip_towns, fill_places, move_to_address_state
from engine.text import fold

log = structlog.get_logger("grace.directory")


@dataclass(frozen=True)
class Directory:
    id: str
    path: Path
    mapping: Mapping
    records: tuple[Record, ...]
    content_hash: str

    def record(self, source_index: int) -> Record | None:
        if 0 <= source_index < len(self.records) and self.records[source_index].source_index == source_index:
            return self.records[source_index]
        return next((r for r in self.records if r.source_index == source_index), None)


def _read_records(path: Path, mapping: Mapping) -> tuple[list[Any], bytes]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DirectoryFileError(f"{path}: cannot read ({exc.strerror})", code="directory.file_unreadable") from exc
    if mapping.format == "csv":
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DirectoryFileError(f"{path.name}: not UTF-8 text", code="directory.file_encoding") from exc
        return [dict(row) for row in csv.DictReader(text.splitlines())], data
    try:
        parsed: Any = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DirectoryFileError(f"{path.name}: not readable JSON ({exc})", code="directory.file_json") from exc
    for key in mapping.records_path:
        if not isinstance(parsed, dict) or key not in parsed:
            raise DirectoryFileError(f"{path.name}: records_path key {key!r} not found",
                                     code="directory.file_records_path")
        parsed = parsed[key]
    if not isinstance(parsed, list):
        raise DirectoryFileError(f"{path.name}: the records are not a list", code="directory.file_not_list")
    return parsed, data


def _first(record: Any, path: str | None) -> str | None:
    if not path:
        return None
    found = values(record, path)
    return found[0] if found else None


def _zip_elsewhere(record: Record) -> bool:
    row = us_places().zips.get(record.zip or "") if record.zip and record.state else None
    return row is not None and row.state != record.state


def _joined(record: Any, path: str | None) -> str | None:
    found = values(record, path) if path else []
    return "; ".join(found) if found else None


class _Builder:
    def __init__(self, rules: DirectoryRules, mapping: Mapping, source: str, secondary_source: str | None) -> None:
        self.rules = rules
        self.mapping = mapping
        self.source = source
        self.secondary_source = secondary_source
        self.address = AddressParser(rules.address)
        self.hours = HoursParser(rules.time)
        self.concepts = ConceptMatcher(rules.semantic)

    def _evidence(self, record: Any, logical: str, source: str) -> tuple[Evidence, ...]:
        path = self.mapping.scalars.get(logical)
        if not path:
            return ()
        return tuple(Evidence(path, v, source) for v in values(record, path))

    def _tags(self, record: Any, extra: Any) -> list[tuple[str, Evidence]]:
        tags: list[tuple[str, Evidence]] = []
        sources = [(record, self.mapping.texts["tags"], self.source)]
        if extra is not None and self.mapping.secondary is not None:
            sources.append((extra, self.mapping.secondary.fields.get("tags", ()), self.secondary_source or ""))
        for rec, paths, src in sources:
            for path in paths:
                for value in values(rec, path):
                    tag = self.mapping.tag_map.get(value, fold(value).strip().replace(" ", "_"))
                    tags.append((tag, Evidence(path, value, src)))
        for rule in self.mapping.value_tags:
            for value in tag_values(record, rule.field):
                if rule.pattern.search(value):
                    tags.append((rule.tag, Evidence(rule.field, value, self.source)))
        return tags

    def _passages(self, record: Any, extra: Any) -> list[Evidence]:
        passages: list[Evidence] = []
        for logical in ("eligibility", "notes", "services"):
            for path in self.mapping.texts[logical]:
                for value in values(record, path):
                    passages.extend(split_passages(value, path, self.source))
            if extra is not None and self.mapping.secondary is not None:
                for path in self.mapping.secondary.fields.get(logical, ()):
                    for value in values(extra, path):
                        passages.extend(split_passages(value, path, self.secondary_source or ""))
        return passages

    def _names_a_day(self, text: str) -> bool:
        """A weekday written out (or abbreviated) next to a clock time: the only notes read as opening hours."""
        return self._has_day_word(text) and bool(re.search(r"\d", text))

    def _has_day_word(self, text: str) -> bool:
        time = self.rules.time
        words = set(re.findall(r"[a-z]+", fold(text)))
        return bool(words & (set(time.day_words) | set(time.day_abbreviations)))

    def _served_zips(self, passages: list[Evidence]) -> dict[str, tuple[Evidence, ...]]:
        """'Zip Codes Served: 94110, 94112': each code as the attribute ``served_zip:<code>``, the passage quoted."""
        found: dict[str, tuple[Evidence, ...]] = {}
        for passage in passages:
            if any(p.search(fold(passage.quote)) for p in self.rules.natural.served_zip_patterns):
                for code in re.findall(r"(?<!\d)\d{5}(?!\d)", passage.quote):
                    found.setdefault(f"{SERVED_ZIP}{code}", (passage,))
        return found

    def _hour_notes(self, record: Any, extra: Any, passages: list[Evidence]) -> list[Evidence]:
        """Notes that state opening hours: a passage naming a weekday and a number ('sober for 24 hours',
        'Frequency: Daily' are no hours), or a weekday passage with no number directly followed, in the same field,
        by a time passage without a weekday ('Distribution Day: Saturday | Distribution Time: 8:30 am - 10:30 am',
        'Hours of operation: Mon, Wed, Fri || 10AM - 3PM'): that pair is quoted as the verbatim span holding both."""
        notes: list[Evidence] = []
        for position, passage in enumerate(passages):
            if self._names_a_day(passage.quote):
                notes.append(passage)
                continue
            if re.search(r"\d", passage.quote) or not self._has_day_word(passage.quote):
                continue
            following = passages[position + 1] if position + 1 < len(passages) else None
            if (following is None or (following.field, following.source) != (passage.field, passage.source)
                    or self._has_day_word(following.quote) or not re.search(r"\d", following.quote)):
                continue
            span = self._span(record if passage.source == self.source else extra, passage, following)
            if span is not None:
                notes.append(span)
        return notes

    @staticmethod
    def _span(record: Any, first: Evidence, second: Evidence) -> Evidence | None:
        """The verbatim text of ``record``'s field from ``first`` through ``second`` (two adjacent passages)."""
        if record is None:
            return None
        for value in values(record, first.field):
            start = value.find(first.quote)
            end = value.find(second.quote, start + len(first.quote)) if start >= 0 else -1
            if end >= 0 and not value[start + len(first.quote):end].strip(" |;\n\r\t\\n"):
                return Evidence(first.field, value[start:end + len(second.quote)], first.source)
        return None

    def _day_label_schedule(self, hours_text: str, passages: list[Evidence], schedule: Schedule,
                            evidence: Evidence | None) -> tuple[Schedule, Evidence | None]:
        """An hours field with clock times and no weekday ('8:30 am - 10:30 am') whose day is stated in a note
        without any time ('Distribution Day: Saturday'): the day is read with those times, the note is the quote.
        Only one day note may be used: two would not say which times belong to which day."""
        if not re.search(r"\d", hours_text):
            return schedule, evidence
        labels = [p for p in passages if not re.search(r"\d", p.quote) and self._has_day_word(p.quote)]
        if len(labels) != 1:
            return schedule, evidence
        combined = self.hours.parse(f"{labels[0].quote} {hours_text}")
        if combined.known and all(slot.start is not None for slot in combined.slots):
            return combined, labels[0]
        return schedule, evidence

    def _point(self, record: Any, extra: Any) -> tuple[float, float] | None:
        """Decimal degrees from the mapped coordinate fields; anything unparsable or out of range is None."""
        if self.mapping.coordinates is None:
            return None
        lat_ref, lon_ref, secondary = self.mapping.coordinates
        source = extra if secondary else record
        if source is None:
            return None
        try:
            lat, lon = float(_first(source, lat_ref) or "nan"), float(_first(source, lon_ref) or "nan")
        except ValueError:
            return None
        return (lat, lon) if -90 <= lat <= 90 and -180 <= lon <= 180 else None

    def _services(self, name: str, passages: list[Evidence]) -> tuple[dict[str, tuple[Evidence, ...]], bool]:
        """Non-food service types a record offers (by its name or a note) and whether it offers only those."""
        natural = self.rules.natural
        name_evidence = Evidence(self.mapping.scalars["name"] or "name", name, self.source)
        folded_name = fold(name)
        found: dict[str, tuple[Evidence, ...]] = {}
        non_food = False
        forms = [(ev, fold(ev.quote)) for ev in [name_evidence, *passages]]
        for service in natural.services.values():
            quotes = [ev for ev, form in forms if any(p.search(form) for p in service.record_patterns)]
            if not quotes:
                continue
            found[f"service:{service.id}"] = tuple(quotes)
            in_name = quotes[0] is name_evidence
            if in_name and not any(word in folded_name for word in service.food_words_in_name):
                non_food = True
            elif service.food_offer_patterns and not any(p.search(form) for _, form in forms
                                                         for p in service.food_offer_patterns):
                non_food = True  # the service and no word of food anywhere: a benefits office, not a pantry
        if any(p.search(ev.quote) for p in natural.only_patterns for ev in passages):
            non_food = True
        # a service-type field whose every value is a non-food service ('Community Gardens') offers no food
        typed = [form for ev, form in forms if ev.field in self.mapping.texts["services"]]
        if typed and all(any(p.search(form) for service in natural.services.values()
                             for p in service.record_patterns) for form in typed):
            non_food = True
        return found, non_food

    def build(self, index: int, record: Any, extra: Any) -> tuple[Record, tuple[str, ...]]:
        scalars = self.mapping.scalars
        raw = {name: self._evidence(record, name, self.source) for name in scalars}
        name = _first(record, scalars["name"])
        if name is None:
            raise DirectoryFileError(f"record {index} has no name (field {scalars['name']!r})",
                                     code="directory.record_no_name")
        address = _first(record, scalars["address"])
        parts = self.address.parse(address)
        state_value = _first(record, scalars["state"])
        state = (state_value.strip().upper() if state_value else None) or parts.state or self.mapping.default_state
        city_value = _first(record, scalars["city"])
        city = display_case(clean(city_value)) if city_value else parts.city
        if city:
            city = self.address.strip_state(city, state)
        zip_value = _first(record, scalars["zip"])
        zip_code = _zip(zip_value) if zip_value else parts.zip
        counties: list[County] = []
        for value in values(record, scalars["county"]) if scalars["county"] else []:
            county = self.address.county(value, self.mapping.county_suffix)
            if county is not None and county.key not in {c.key for c in counties}:
                counties.append(county)
        hours_text = _joined(record, scalars["hours"])  # a schedule list (one row per day) is one hours text
        passages = self._passages(record, extra)
        tags = self._tags(record, extra)
        evidence_text = list(passages)
        evidence_text.append(Evidence(scalars["name"] or "name", name, self.source))
        if address:
            evidence_text.append(Evidence(scalars["address"] or "address", address, self.source))
        if hours_text:
            evidence_text.extend(split_passages(hours_text, scalars["hours"] or "hours", self.source))
        schedule = self.hours.parse(hours_text)
        hours_evidence = Evidence(scalars["hours"] or "hours", hours_text, self.source) if (
            hours_text and schedule.known) else None
        slot_quotes: list[tuple[Any, Evidence]] = []
        hour_notes = self._hour_notes(record, extra, passages)
        if not schedule.known:
            for note in hour_notes:  # hours stated in a note when the hours field has none
                from_note = self.hours.parse(note.quote)
                if from_note.known and any(slot.start is not None for slot in from_note.slots):
                    schedule, hours_evidence = from_note, note
                    break
        if hours_text and not schedule.known:
            schedule, hours_evidence = self._day_label_schedule(hours_text, passages, schedule, hours_evidence)
        if schedule.known:
            # more openings stated in a note ('Pantry is also open on the 1st Saturday of each month from 10 to 12')
            for note in hour_notes:
                if note is hours_evidence or any(p.search(fold(note.quote)) for p in self.hours.vocab.contact_hours):
                    continue  # 'call the office Monday through Friday to check': when to phone, not an opening
                extra_slots = [slot for slot in self.hours.parse(note.quote).slots
                               if slot.start is not None and slot not in schedule.slots]
                slot_quotes.extend((slot, note) for slot in extra_slots)
            if slot_quotes:
                schedule = replace(schedule, slots=tuple(schedule.slots) + tuple(s for s, _ in slot_quotes))
        services, non_food = self._services(name, passages)
        point = self._point(record, extra)
        attributes = self.concepts.evidence(evidence_text, tags)
        attributes.update(services)
        attributes.update(self._served_zips(passages))
        built = Record(
            source_index=index, name=clean(name).strip(), address=address, city=city,
            city_key=place_key(city) if city else None,
            counties=tuple(c.display for c in counties), county_keys=tuple(c.key for c in counties),
            state=state, zip=zip_code, phone=_first(record, scalars["phone"]), hours_text=hours_text,
            schedule=schedule, link=_first(record, scalars["link"]),
            tags=tuple(dict.fromkeys(t for t, _ in tags)), passages=tuple(passages),
            raw={k: v for k, v in raw.items() if v},
            attributes=attributes,
            quadrant=self.address.quadrant(address), non_food=non_food, hours_evidence=hours_evidence, point=point,
            slot_quotes=tuple(slot_quotes),
        )
        return built, parts.tail


def _zip(value: str) -> str | None:
    digits = value.strip().split("-")[0]
    return digits if len(digits) == 5 and digits.isdigit() else None


def _load_secondary(directory_path: Path, mapping: Mapping, count: int, primary: list[Any]) -> tuple[list[Any], str]:
    assert mapping.secondary is not None
    path = (directory_path.parent / mapping.secondary.file).resolve()
    sec_mapping = replace(mapping, format="json" if path.suffix.lower() != ".csv" else "csv", records_path=())
    records, _ = _read_records(path, sec_mapping)
    if len(records) != count:
        raise MappingError(f"secondary file {path.name} has {len(records)} records, the directory {count}",
                           code="directory.secondary_length")
    verify = mapping.secondary.verify_field
    if verify:
        for i, (a, b) in enumerate(zip(primary, records, strict=True)):
            left, right = get_path(a, verify), get_path(b, verify)
            if not (isinstance(left, str) and isinstance(right, str) and left.strip() == right.strip()):
                raise MappingError(f"secondary file {path.name}: record {i} does not match on {verify}",
                                   code="directory.secondary_mismatch")
    return records, path.name


def _resolve_cities(records: list[Record], tails: list[tuple[str, ...]], parser: AddressParser) -> list[Record]:
    """Second pass for addresses whose city had no comma: known cities, then the ZIP's city, then a guess."""
    known: dict[tuple[str, ...], str] = {}
    by_zip: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        if record.city:
            known.setdefault(key_tokens(record.city), record.city)
            if record.zip:
                by_zip[record.zip][record.city] += 1
    longest = max((len(k) for k in known), default=0)
    resolved = []
    for record, tail in zip(records, tails, strict=True):
        if record.city or not tail:
            resolved.append(record)
            continue
        words = key_tokens(" ".join(tail))
        city = None
        for size in range(min(longest, len(words)), 0, -1):
            city = known.get(words[-size:])
            if city:
                break
        if city is None:
            city = parser.guess_from_tail(tail)
        if city is None and record.zip and by_zip.get(record.zip):
            city = by_zip[record.zip].most_common(1)[0][0]
        resolved.append(replace(record, city=city, city_key=place_key(city) if city else None))
    return resolved


def _merge_city_spellings(records: list[Record], ratio: float, misspelling_ratio: float) -> list[Record]:
    """One town spelt two ways in the same state and county ('Silver Spring' / 'Silver Springs'): the rarer
    spelling takes the commoner one, so the town is one place in the graph; between two equally common ones a
    real town of the state (the ZIP source) takes a spelling that is none ('Kurtisown' -> 'Kurtistown')."""
    counts: Counter[tuple[str | None, str]] = Counter()
    labels: dict[tuple[str | None, str], str] = {}
    counties: dict[tuple[str | None, str], set[str]] = defaultdict(set)
    for record in records:
        if record.city_key and record.city:
            key = (record.state, record.city_key)
            counts[key] += 1
            labels.setdefault(key, record.city)
            counties[key].update(record.county_keys)
    rename: dict[tuple[str | None, str], tuple[str | None, str]] = {}
    towns = us_places().towns
    known = {key: (tuple(key[1].split()), key[0] or "") in towns for key in counts}
    ordered = sorted(counts, key=lambda k: (-counts[k], not known[k], k[1]))
    for i, rare in enumerate(ordered):
        for common in ordered[:i]:
            wins = counts[common] > counts[rare] or (counts[common] == counts[rare] and known[common]
                                                     and not known[rare])
            if common[0] != rare[0] or common in rename or not wins:
                continue
            shared = not counties[rare] or not counties[common] or bool(counties[rare] & counties[common])
            needed = misspelling_ratio if known[common] and not known[rare] else ratio
            if shared and fuzz.ratio(rare[1], common[1]) >= min(needed, ratio):
                rename[rare] = common
                break
    if not rename:
        return records
    log.info("directory.load.city_spellings_merged", merged={r[1]: c[1] for r, c in rename.items()})
    return [replace(r, city=labels[rename[(r.state, r.city_key)]], city_key=rename[(r.state, r.city_key)][1])
            if r.city_key and (r.state, r.city_key) in rename else r for r in records]


def load_directory(directory_path: Path, mapping_path: Path, rules: DirectoryRules | None = None) -> Directory:
    """Read and normalise a directory. Fails closed: any malformed input raises, nothing is half-loaded."""
    if rules is None:
        raise DirectoryRulesError("loading a directory needs the directory rules of a verified bundle",
                                  code="directory.rules_missing")
    mapping = load_mapping(Path(mapping_path))
    path = Path(directory_path)
    raw_records, data = _read_records(path, mapping)
    digest = hashlib.sha256(data)
    extra_records: list[Any] | None = None
    secondary_name = None
    if mapping.secondary is not None:
        extra_records, secondary_name = _load_secondary(path, mapping, len(raw_records), raw_records)
        digest.update((path.parent / mapping.secondary.file).resolve().read_bytes())
    builder = _Builder(rules, mapping, path.name, secondary_name)
    records: list[Record] = []
    tails: list[tuple[str, ...]] = []
    for index, raw in enumerate(raw_records):
        if not isinstance(raw, dict):
            raise DirectoryFileError(f"{path.name}: record {index} is not an object", code="directory.record_invalid")
        extra = extra_records[index] if extra_records is not None else None
        record, tail = builder.build(index, raw, extra)
        records.append(record)
        tails.append(tail)
    records = _resolve_cities(records, tails, builder.address)
    if any(not r.county_keys or not r.city for r in records):  # scraped lists without county / city fields
        records = fill_places(records, us_places(), rules.address.street_words)
    if any(_zip_elsewhere(r) for r in records):  # an address over the line where the state field is one default
        records = move_to_address_state(records, us_places())
    records = _merge_city_spellings(records, rules.natural.city_variant_ratio, rules.natural.city_misspelling_ratio)
    records = add_zip_towns(records, us_places())
    directory = Directory(id=mapping.directory_id, path=path, mapping=mapping, records=tuple(records),
                          content_hash="sha256:" + digest.hexdigest())
    log.info("directory.load.done", directory=directory.id, records=len(records),
             hours_known=sum(r.schedule.known for r in records), cities=len({r.city_key for r in records}))
    return directory
