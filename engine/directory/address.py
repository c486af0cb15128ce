"""Recovering city, state and ZIP from free-text addresses; normalising county spellings.

A city is read from the address only when the directory has no city field. The comma-delimited segment before
the state/ZIP is trusted; otherwise the caller resolves the tail words against cities seen elsewhere in the same
directory (see ``ingest``), then the ZIP's most common city, then a last-words heuristic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.directory.directory_rules import AddressVocabulary
from engine.directory.normalize import clean, display_case, place_key
from engine.text import fold

_ZIP_AFTER = re.compile(r"^[\s,.]*(?:zip(?:\s*code)?:?\s*)?(\d{5,})(?:-(\d{4}))?(?!\d)", re.IGNORECASE)
_TRAILING_ZIP = re.compile(r"(?<![\d-])(\d{5})(?:-\d{4})?(?!\d)")
_WORDS = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.-]*")


@dataclass(frozen=True)
class AddressParts:
    city: str | None  # confidently parsed city (display form)
    state: str | None  # state code
    zip: str | None
    tail: tuple[str, ...]  # words before the state/ZIP when no confident city: for later resolution


@dataclass(frozen=True)
class County:
    display: str
    key: str


class AddressParser:
    def __init__(self, vocab: AddressVocabulary) -> None:
        self.vocab = vocab
        names = sorted({n for names in vocab.states.values() for n in names}, key=len, reverse=True)
        self._name_to_code = {n: code for code, ns in vocab.states.items() for n in ns}
        self._state_name = re.compile(r"(?<![A-Za-z])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z])",
                                      re.IGNORECASE)
        self._state_code = re.compile(r"(?<![A-Za-z])([A-Z][A-Za-z])\.?(?![A-Za-z])")

    # ------------------------------------------------------------------ addresses
    def _state_candidates(self, text: str) -> list[tuple[int, int, str]]:
        found = []
        for match in self._state_code.finditer(text):
            code = match.group(1).upper()
            if code in self.vocab.states:
                found.append((match.start(), match.end(), code))
        for match in self._state_name.finditer(text):
            found.append((match.start(), match.end(), self._name_to_code[fold(match.group(1))]))
        return sorted(found)

    def parse(self, address: str | None) -> AddressParts:
        if not address or not address.strip():
            return AddressParts(None, None, None, ())
        text = clean(address).strip()
        state: str | None = None
        zip_code: str | None = None
        pre: str | None = None
        candidates = self._state_candidates(text)
        with_zip = []
        at_end = []
        for start, end, code in candidates:
            after = text[end:]
            match = _ZIP_AFTER.match(after)
            if match and start > 0:
                with_zip.append((start, code, match.group(1)))
            elif start > 0 and re.fullmatch(r"[\s,.)]*(\(.*)?", after):
                at_end.append((start, code))
        if with_zip:
            start, state, digits = with_zip[-1]
            zip_code = digits if len(digits) == 5 else None
            pre = text[:start]
        elif at_end:
            start, state = at_end[-1]
            pre = text[:start]
        else:
            zips = [m for m in _TRAILING_ZIP.finditer(text) if re.search(r"[A-Za-z][,.]?\s*$", text[:m.start()])]
            if zips:
                zip_code = zips[-1].group(1)
                pre = text[:zips[-1].start()]
        if pre is None:
            return AddressParts(None, state, zip_code, ())
        pre = pre.rstrip(" ,.")
        segments = [s.strip(" .") for s in pre.split(",")]
        last = segments[-1] if segments else ""
        if last and self._looks_like_city(last):
            return AddressParts(display_case(last), state, zip_code, ())
        tail = tuple(_WORDS.findall(last))
        return AddressParts(None, state, zip_code, tail)

    def _looks_like_city(self, segment: str) -> bool:
        if any(ch.isdigit() for ch in segment):
            return False
        words = segment.split()
        if not 1 <= len(words) <= 4:
            return False
        folded = [fold(w).strip(".") for w in words]
        return folded[-1] not in self.vocab.street_words and not all(w in self.vocab.street_words for w in folded)

    def quadrant(self, address: str | None) -> str | None:
        """'1990 K St. NW' -> 'NW': an upper-case quadrant code standing alone after the street number."""
        if not address or not self.vocab.quadrants:
            return None
        codes = "|".join(re.escape(c) for c in self.vocab.quadrants)
        found = {m.group(1) for m in re.finditer(rf"(?<=\s)({codes})\.?(?![A-Za-z])", clean(address))
                 if re.search(r"\d", address[:m.start()])}
        return found.pop() if len(found) == 1 else None  # two different quadrants: unknown, never guessed

    def guess_from_tail(self, tail: tuple[str, ...]) -> str | None:
        """Last-resort city from the words right before the state: 'Hill City', 'La Cygne', 'Oakley'."""
        words = [w.strip(".") for w in tail if w.strip(".")]
        if not words:
            return None
        last = words[-1]
        if fold(last) in self.vocab.street_words or len(last) < 3 or not last.isalpha():
            return None
        if len(words) >= 2 and (words[-2].isdigit() or fold(words[-2]) in self.vocab.directional_words):
            return None  # "216 N Chautauqua": the last word is the street's name, not a city
        picked = [last]
        if len(words) >= 2 and (fold(last) in self.vocab.place_suffix_words
                                or fold(words[-2]) in self.vocab.place_prefix_words):
            previous = words[-2]
            if fold(previous) not in self.vocab.street_words or fold(last) in self.vocab.place_suffix_words:
                picked.insert(0, previous)
        return display_case(" ".join(picked))

    def strip_state(self, city: str, state: str | None) -> str:
        """'Washington DC' -> 'Washington' when DC is the record's state."""
        words = city.split()
        if len(words) > 1 and state and words[-1].replace(".", "").upper() == state:
            return " ".join(words[:-1])
        return city

    # ------------------------------------------------------------------ counties
    def county(self, raw: str, suffix: str | None = None) -> County | None:
        """'Allen County, Kansas', 'MD Prince George's County', 'VA City of Manassas', 'Albany' -> County."""
        text = clean(raw).strip().strip("*").strip()
        folded = fold(text)
        if not text or any(p.search(folded) for p in self.vocab.unknown_county_patterns):
            return None
        prefix = re.match(r"^([A-Z]{2})\s+(?=\S)", text)
        if prefix and prefix.group(1) in self.vocab.states:
            text = text[prefix.end():]
        text = re.sub(r",\s*[A-Za-z .]+$", lambda m: "" if self._is_state(m.group(0)) else m.group(0), text).strip()
        lowered = fold(text)
        for pattern in self.vocab.independent_city_patterns:
            match = pattern.match(lowered)
            if match:
                name = display_case(text[match.start("name"):match.end("name")])
                return County(display=f"{name} City", key=place_key(f"{name} city"))
        words = text.split()
        if len(words) > 1 and fold(words[-1]).strip(".") in {s.strip(".") for s in self.vocab.county_suffixes}:
            name = display_case(" ".join(words[:-1]))
            return County(display=f"{name} County", key=place_key(name))
        name = display_case(text)
        display = f"{name} {suffix}" if suffix else name
        return County(display=display, key=place_key(name))

    def _is_state(self, tail: str) -> bool:
        value = fold(tail.strip(" ,."))
        return value in self._name_to_code or value.upper() in self.vocab.states
