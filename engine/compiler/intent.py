"""Reading a manager's intent into phrases: every piece of information it asks to collect, in the manager's words.

The reading is deterministic and needs only rules/compiler.json, so ``goals validate`` can re-read the intent of
any spec and check that every phrase is accounted for. Steps, on ``fold(intent)`` (case- and accent-insensitive):

1. Purpose clauses ("in order to arrange a viewing", "para traer el coche al taller") say what the data is for:
   they never yield an objective. One ends at the end of its clause, or earlier where an item that names
   information follows ("… para traer el coche al taller y un teléfono").
2. Each clause (sentence or ';' part) is cut into items at the item separators, except inside kind keywords
   ("make and model"), parentheses and listed options ("psychologist, psychiatrist or family counselor").
3. A collect marker ("we want to know", "recopilando") or a colon opens the list of things to collect; every
   item after it is a phrase. Elsewhere only items naming a kind keyword count (a heading or context sentence
   such as "Restaurant bookings:" is not information to collect); a bare list with a keyword counts whole.
4. Coordinated items share their head: "pick-up and return dates", "the number of bedrooms and bathrooms".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.matching import Match, compile_patterns, select_non_overlapping
from engine.compiler.textmap import FoldedText, fold_map
from engine.kernel.goal_models import CriterionKind
from engine.text import fold as fold_word

# A full stop ends a clause, except after "etc", "e.g", "i.e" or a list number ("1. their budget").
_CLAUSE_END = re.compile(r"[!?;\n]|(?<!\betc)(?<!\be\.g)(?<!\bi\.e)(?<!^\d)(?<!\s\d)\.(?=\s|$)")
_LIST_MARK = re.compile(r"^\s*(?:[-*•·–—]|\d{1,2}[.)])\s+")
_PARENS = re.compile(r"\([^()]*\)")
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”|«[^»\n]*»')
_WORD = re.compile(r"[\w'’-]+")
_BARE_OPTION_WORDS = 2  # "mâle ou femelle": an item that is only two short alternatives lists them


@dataclass(frozen=True)
class Phrase:
    """One piece of information the intent asks for."""

    start: int  # folded offsets of the phrase in the intent
    end: int
    text: str  # the manager's words (lead-ins such as "the client's" removed)
    kind: str | None  # objective kind key; None = nothing more specific than free text
    keyword: str = ""  # the folded keyword or pattern text that decided the kind
    implied: bool = False  # only implied ("interested in cleaning services" implies a service type)
    options: tuple[str, ...] = ()  # options the manager listed, in their words
    open_options: bool = False  # the list ends with "and so on", "etc." (examples, several may apply)
    option_head: str = ""  # a plural noun the listed options share ("beach, city or adventure trips")
    option_forms: tuple[str, ...] = ()  # per option, the manager's fuller wording of it ("lavado normal"), or ""
    unit: str | None = None  # what a count counts ("employees"), in the manager's words
    measured: bool = False  # the unit came from a scope after the phrase ("the boat's length in metres")
    source: str = ""  # the whole item as the manager wrote it (parenthesised options included)
    article: str = ""  # the definite article the manager put before it ("el" motivo de la consulta)


@dataclass(frozen=True)
class IntentReading:
    folded: str
    phrases: list[Phrase]
    purpose: list[tuple[int, int]]  # folded ranges that state what the data is for
    context: list[str] = field(default_factory=list)  # items that name nothing to collect (for the reviewer)


@dataclass
class _Item:
    start: int
    end: int
    cut_before: str  # the separator text before this item ("", ",", ":", "and", "purpose", ...)
    in_scope: bool = False
    options: tuple[str, ...] = ()
    open_options: bool = False
    option_span: tuple[int, int] | None = None
    option_head: str = ""


def _inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in ranges)


def kind_matches(folded: str, rules: CompilerRules, language: str | None = None) -> list[Match]:
    """Keyword and pattern matches of every objective kind, non-overlapping, longest first at a position; in the
    intent's language when it is known (another language's keyword is a false friend: "nombre")."""
    found = rules.keyword_index(language).all_matches(folded)
    for label, pattern in rules.kind_patterns(language):
        found.extend(Match(label, m.group(0), m.start(), m.end()) for m in pattern.finditer(folded))
    found = [m for m in found if not any(p.match(folded, m.end) for p in rules.not_before(m.label))]
    return select_non_overlapping(found)


def _patterns(rules: CompilerRules, table: dict[str, list[str]], where: str,
              language: str | None = None) -> list[re.Pattern[str]]:
    """Compiled patterns of a per-language table: one language's when given (and known), else all of them."""
    roles = {lang: "|".join(re.escape(r) for r in sorted(terms, key=len, reverse=True))
             for lang, terms in rules.phrasing.roles.items()}
    compiled: list[re.Pattern[str]] = []
    chosen = [language] if language in table else sorted(table)
    for language, sources in [(lang, table[lang]) for lang in chosen]:
        expanded = [s.replace("{roles}", roles.get(language, "")) for s in sources]
        compiled.extend(compile_patterns(expanded, f"compiler.json {where}/{language}"))
    return compiled


def _strip_leads(text: str, patterns: list[re.Pattern[str]]) -> str:
    text = _LIST_MARK.sub("", text).lstrip(" \t,.:;-—–¿¡*•")
    changed = True
    while changed and text:
        changed = False
        for pattern in patterns:
            match = pattern.match(text)
            if match and match.end() > 0:
                text = text[match.end():].lstrip(" \t,.:;-—–¿¡*•")
                changed = True
    return text


def _separator_pattern(rules: CompilerRules) -> re.Pattern[str]:
    separators = [s for sources in rules.item_separators.values() for s in sources]
    # Single characters are literal punctuation; longer entries are regexes.
    body = "|".join(re.escape(s) if len(s) == 1 else s for s in sorted(set(separators), key=len, reverse=True))
    return re.compile(body)


def _word_list(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def _listed(text: str, rules: CompilerRules) -> tuple[list[str], bool]:
    """The options of a list ("catering, bar and so on"): pieces, and whether the list is open-ended."""
    opt = rules.options
    open_markers = [m for ms in opt.open_list_markers.values() for m in ms]
    is_open = False
    for marker in sorted(open_markers, key=len, reverse=True):
        pattern = rf"(?:\s|,|^)+{re.escape(marker)}\s*$" if marker[0].isalnum() else rf"\s*{re.escape(marker)}\s*$"
        if re.search(pattern, text):
            text = re.sub(pattern, "", text)
            is_open = True
    joiners = _word_list([j for js in opt.list_joiners.values() for j in js])
    pieces = [p.strip(" .…") for p in re.split(rf",|;|/|\b(?:{joiners})\b", text)]
    return [p for p in pieces if p], is_open


def _tail(words: list[str], stop: set[str], limit: int) -> list[str]:
    tail: list[str] = []
    for word in reversed(words):
        if word in stop or len(tail) >= limit:
            break
        tail.insert(0, word)
    return tail


class _Reader:
    def __init__(self, intent: str, rules: CompilerRules, language: str | None) -> None:
        self.rules = rules
        self.language = language
        self.ft: FoldedText = fold_map(intent)
        self.folded = self.ft.folded
        self.matches = kind_matches(self.folded, rules, language)
        self.collect = _patterns(rules, rules.collect_markers, "collect_markers")
        self.openers = _patterns(rules, rules.context_openers, "context_openers")
        # Words stripped from an item's edges are the intent language's ("a" is an article only in English).
        ph = rules.phrasing
        self.leads = _patterns(rules, ph.lead_ins, "phrasing.lead_ins", language)
        self.trails = _patterns(rules, ph.trail_outs, "phrasing.trail_outs", language)
        self.starters = _patterns(rules, ph.clause_starters, "phrasing.clause_starters", language)
        self.questions = _patterns(rules, ph.question_starts, "phrasing.question_starts", language)
        every_article = {a for articles in ph.articles.values() for a in articles}
        self.articles = set(ph.articles.get(language, [])) if language else every_article
        self.units = _patterns(rules, rules.quantity_units, "quantity_units")
        self.measures = _patterns(rules, rules.measure_suffixes, "measure_suffixes")
        self.currencies = _patterns(rules, rules.currency_suffixes, "currency_suffixes")
        self.stop = {w for ws in rules.phrasing.stopwords.values() for w in ws}
        self.alternatives = _word_list([j for js in rules.options.alternative_joiners.values() for j in js])
        self.choice = _word_list([c for cs in rules.options.choice_starts.values() for c in cs])
        self.separators = _separator_pattern(rules)
        self._purpose_patterns = _patterns(rules, rules.purpose_markers, "purpose_markers")
        self._purpose_by_language = {lang: _patterns(rules, rules.purpose_markers, "purpose_markers", lang)
                                     for lang in rules.purpose_markers}
        self.purpose = self._purpose_ranges()
        self.parens = [(m.start(), m.end()) for m in _PARENS.finditer(self.folded)]
        self.quotes = [(m.start(), m.end()) for m in _QUOTED.finditer(self.folded)]
        self.context: list[str] = []
        # Where the first clause holding a collect marker starts ("^demander" is anchored at its clause's start).
        # A marker anchored at its clause's start may also open the item after a comma ("Pour une demande
        # d'intervention, demander le nom …").
        self.first_marker = next((start for start, end, _ in self.clauses()
                                  if any(p.search(_LIST_MARK.sub("", self.folded[start:end]).lstrip(" \t"))
                                         for p in self.collect)
                                  or any(self._marker_end(self.folded[i.start:i.end]) is not None
                                         for i in self.items(start, end))), None)

    # -- purpose clauses ---------------------------------------------------------------------------------------

    def _starts_information(self, position: int) -> bool:
        """Whether an item that names information begins at ``position``: a kind keyword after lead-ins such as
        'a', 'their', or a question ("en qué sede …")."""
        rest = self.folded[position:]
        lead = _strip_leads(rest, self.leads)
        offset = position + (len(rest) - len(lead))
        return any(m.start == offset for m in self.matches) or any(p.match(lead) for p in self.questions)

    def _continues_purpose(self, position: int) -> bool:
        """Whether the item at ``position`` reads as the same purpose ("... to arrange a visit and send a quote"):
        it opens a purpose itself, or does once a continuation word ("to", "para") is put before it."""
        rest = self.folded[position:].lstrip(" \t")
        if any(p.match(rest) for p in self._purpose_patterns):
            return True
        # A continuation word is tried in the intent's language only (with its own markers): Spanish "para" +
        # "calendar" must not read an English item ("calendar date …") as a Spanish infinitive.
        languages = [self.language] if self.language in self.rules.purpose_continuations \
            else list(self.rules.purpose_continuations)
        return any(p.match(f"{w} {rest}") for language in languages
                   for w in self.rules.purpose_continuations[language]
                   for p in self._purpose_by_language.get(language, []))

    def _after_contact(self, position: int) -> bool:
        """Whether the item's keyword right before ``position`` asks for contact data: what an address or a
        number is for ('an email address to send the offer to') is always its purpose."""
        before = [m for m in self.matches if m.end <= position]
        if not before:
            return False
        last = max(before, key=lambda m: m.end)
        kind = next((k for k in self.rules.objective_kinds if k.key == last.label), None)
        return kind is not None and kind.criterion is CriterionKind.CONTACT \
            and self.separators.search(self.folded, last.end, position) is None

    def _contact_purposes(self) -> list[tuple[int, int]]:
        """What contact data is for, said with a preposition right after its keyword ('an email for the waiver',
        'un teléfono para que el técnico le avise'): to the end of that item (rules/compiler.json
        contact_purpose_prepositions)."""
        table = self.rules.contact_purpose_prepositions
        words = sorted({w for lang, ws in table.items() if self.language in (None, lang) for w in ws})
        if not words:
            return []
        lead = re.compile(rf"\s+(?:{'|'.join(re.escape(w) for w in words)})\b")
        ranges = []
        for match in self.matches:
            kind = self.rules.kind(match.label)
            found = lead.match(self.folded, match.end)
            if kind is None or kind.criterion is not CriterionKind.CONTACT or found is None:
                continue
            clause_end = _CLAUSE_END.search(self.folded, found.end())
            end = clause_end.start() if clause_end else len(self.folded)
            sep = self.separators.search(self.folded, found.end(), end)
            ranges.append((found.start() + 1, sep.start() if sep else end))
        return ranges

    def _stranded(self, clause: str) -> bool:
        """Whether a would-be purpose clause ends with a preposition of the intent's language (rule data)."""
        words = re.findall(r"[a-z']+", clause)
        table = self.rules.purpose_stranded_prepositions
        languages = [self.language] if self.language in table else list(table)
        return bool(words) and len(words) >= 3 and any(words[-1] in table[lang] for lang in languages)

    def _purpose_ranges(self) -> list[tuple[int, int]]:
        folded, ranges = self.folded, []
        for marker_pattern in _patterns(self.rules, self.rules.purpose_markers, "purpose_markers"):
            for marker in marker_pattern.finditer(folded):
                # A keyword that starts before the marker and runs into it wins ("way to contact").
                if any(k.start < marker.start() < k.end for k in self.matches):
                    continue
                clause_end = _CLAUSE_END.search(folded, marker.end())
                end = clause_end.start() if clause_end else len(folded)
                before = folded[: marker.start()].rstrip()
                if not before or before[-1] in ".!?\n;":
                    # A purpose that opens the sentence ends at its comma or where the collect list starts.
                    stops = [m.start() for m in re.finditer(r"[,:]", folded[marker.end():end])]
                    stops += [m.start() for p in self.collect for m in p.finditer(folded[marker.end():end])]
                    end = marker.end() + min(stops) if stops else end
                else:
                    # Otherwise it ends where an item naming information follows a separator or colon.
                    for sep in self.separators.finditer(folded, marker.end(), end):
                        if sep.group(0) == ":" or self._starts_information(sep.end()) \
                                or not self._continues_purpose(sep.end()):
                            end = sep.start()
                            break
                first_sep = next(self.separators.finditer(folded, marker.end(), end), None)
                if self._stranded(folded[marker.start():first_sep.start() if first_sep else end]) \
                        and not self._after_contact(marker.start()):
                    continue  # 'city to find trips from': the infinitive describes the noun, it is no purpose
                ranges.append((marker.start(), end))
        ranges.extend(self._contact_purposes())
        merged: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    # -- clauses and items -------------------------------------------------------------------------------------

    def clauses(self) -> list[tuple[int, int, str]]:
        """(start, end, terminator) of each clause: sentences, ';' parts and lines."""
        spans, last = [], 0
        for match in _CLAUSE_END.finditer(self.folded):
            if _inside(match.start(), self.parens) or _inside(match.start(), self.quotes):
                continue  # a quoted sentence belongs to the clause that quotes it
            spans.append((last, match.start(), match.group(0)))
            last = match.end()
        spans.append((last, len(self.folded), ""))
        return [(s, e, end) for s, e, end in spans if self.folded[s:e].strip()]

    def _protected(self, position: int) -> bool:
        # A quotation ("Search for, learn about, and book hotels") is the company's own words: one piece.
        return _inside(position, self.parens) or _inside(position, self.quotes) \
            or any(m.start < position < m.end for m in self.matches)

    def items(self, start: int, end: int) -> list[_Item]:
        cuts: list[tuple[int, int, str]] = []
        for sep in self.separators.finditer(self.folded, start, end):
            if not self._protected(sep.start()) and not _inside(sep.start(), self.purpose):
                cuts.append((sep.start(), sep.end(), sep.group(0).strip()))
        for p_start, p_end in self.purpose:
            if start <= p_start < end:
                cuts.append((p_start, min(p_end, end), "purpose"))
        cuts.sort()
        items: list[_Item] = []
        position, before = start, ""
        for cut_start, cut_end, text in cuts:
            if cut_start < position:
                continue
            items.append(_Item(position, cut_start, before))
            position, before = cut_end, text
        items.append(_Item(position, end, before))
        kept = [i for i in items if self.folded[i.start:i.end].strip(" .,'\"")]
        return self._join_glosses(self._join_examples(self._join_option_lists(self._join_colon_options(kept))))

    def _join_colon_options(self, items: list[_Item]) -> list[_Item]:
        """ "account type: checking, savings, etc": short items after a colon list the options of the item before it
        (a heading or a bare collect marker before the colon opens a list instead)."""
        result: list[_Item] = []
        i = 0
        while i < len(items):
            item = items[i]
            j = i + 1
            while j < len(items) and items[j].cut_before == (":" if j == i + 1 else ",") \
                    and self._short(items[j]) is not None:
                j += 1
            if j - i < 2 or item.options or self._only_marker(self.folded[item.start:item.end]) \
                    or (not self._kinds_in(item.start, item.end) and self._marker_end(
                        self.folded[item.start:item.end]) is None):
                result.append(item)
                i += 1
                continue
            listed, is_open = _listed(self.ft.original(items[i + 1].start, items[j - 1].end), self.rules)
            if len(listed) < self.rules.options.min_options:
                result.append(item)
                i += 1
                continue
            item.options, item.open_options = tuple(listed), is_open
            item.option_span = (items[i + 1].start, items[j - 1].end)
            result.append(item)
            i = j
        return result

    def _join_glosses(self, items: list[_Item]) -> list[_Item]:
        """ "passenger destination, either an address or a landmark": an item opening with a gloss marker re-describes
        the item before it; it is context unless it names a kind the item before it does not."""
        markers = sorted((m for ms in self.rules.options.gloss_markers.values() for m in ms), key=len, reverse=True)
        result: list[_Item] = []
        for item in items:
            text = self.folded[item.start:item.end].lstrip()
            marker = next((m for m in markers if re.match(rf"{re.escape(m)}(?!\w)", text)), None)
            if marker is None or not result or item.cut_before != ",":
                result.append(item)
                continue
            before = {m.label for m in self._kinds_in(result[-1].start, result[-1].end)}
            if any(m.label not in before for m in self._kinds_in(item.start, item.end)):
                result.append(item)
                continue
            self.context.append(self.ft.original(item.start, item.end).strip(" ,"))
        return result

    def _join_examples(self, items: list[_Item]) -> list[_Item]:
        """ "their favourite cuisine, e.g. Italian or Thai": examples become the previous item's options."""
        markers = sorted((m for ms in self.rules.options.example_markers.values() for m in ms), key=len, reverse=True)
        result: list[_Item] = []
        for item in items:
            text = self.folded[item.start:item.end].lstrip()
            offset = item.end - item.start - len(text)
            marker = next((m for m in markers if re.match(rf"{re.escape(m)}(?!\w)", text)), None)
            if marker is None or not result or result[-1].options:
                result.append(item)
                continue
            listed, _ = _listed(self.ft.original(item.start + offset + len(marker), item.end), self.rules)
            result[-1].options, result[-1].open_options = tuple(listed), True
            result[-1].option_span = (item.start, item.end)
        return result

    def _kinds_in(self, start: int, end: int) -> list[Match]:
        # Overlap, not containment: a keyword may begin with a word the lead-ins strip ("the make and model").
        return [m for m in self.matches if m.start < end and m.end > start and not _inside(m.start, self.parens)]

    def _short(self, item: _Item, *, choice: bool = False) -> list[str] | None:
        """The words of a short item that can be a listed option (a keyword is allowed after "whether")."""
        words = _WORD.findall(self.folded[item.start:item.end])
        limit = self.rules.options.max_option_words
        if not words or len(words) > limit or (not choice and self._kinds_in(item.start, item.end)):
            return None
        return words

    def _shared_head(self, pieces: list[str]) -> tuple[list[str], str]:
        """ "beach, city or adventure trips": a plural noun ending only the longest, last option is shared by all."""
        from engine.compiler.phrasing import is_plural

        last = pieces[-1].split()
        if len(last) < 2 or any(len(p.split()) >= len(last) for p in pieces[:-1]):
            return pieces, ""
        head = last[-1]
        if not any(is_plural(fold_word(head), lang, self.rules.phrasing) for lang in self.rules.phrasing.inflection):
            return pieces, ""
        return [*pieces[:-1], " ".join(last[:-1])], head

    def _is_choice(self, item: _Item) -> bool:
        text = _strip_leads(self.folded[item.start:item.end], self.leads)
        return bool(self.choice) and re.match(rf"(?:{self.choice})\b", text) is not None

    def _join_option_lists(self, items: list[_Item]) -> list[_Item]:
        """Merge "a psychologist, psychiatrist or family counselor" back into one item with listed options."""
        result: list[_Item] = []
        i = 0
        while i < len(items):
            j = i + 1
            choice = self._is_choice(items[i])  # "whether they prefer beach, city or adventure trips"
            while j < len(items) and items[j].cut_before == "," and self._short(items[j], choice=choice) is not None:
                j += 1
            last = items[j - 1]
            alternatives = re.split(rf"\s+\b(?:{self.alternatives})\b\s+", self.folded[last.start:last.end].strip())
            first_words = _WORD.findall(self.folded[items[i].start:items[i].end])
            # The first option is as long as the next one: "si busca psicólogo, psiquiatra" -> "psicólogo".
            second = _WORD.findall(self.folded[items[i + 1].start:items[i + 1].end] if j - i > 2 else alternatives[0])
            tail = _tail(first_words, self.stop, min(self.rules.options.max_option_words, max(1, len(second))))
            tail_start = list(_WORD.finditer(self.folded, items[i].start, items[i].end))[-len(tail)].start() \
                if tail else items[i].end
            if j - i >= 2 and len(alternatives) == 2 and tail and (choice or not self._kinds_in(
                    tail_start, items[i].end)):
                pieces = [self.ft.original(tail_start, items[i].end)]
                pieces += [self.ft.original(it.start, it.end) for it in items[i + 1:j]]
                pieces = [p.strip(" .") for p in pieces[:-1]] + [
                    p.strip(" .") for p in re.split(rf"\s+\b(?:{self.alternatives})\b\s+",
                                                    self.ft.original(last.start, last.end), flags=re.IGNORECASE)]
                pieces, head = self._shared_head(pieces)
                merged = _Item(items[i].start, last.end, items[i].cut_before, options=tuple(pieces),
                               option_span=(tail_start, last.end), option_head=head)
                result.append(merged)
                i = j
                continue
            result.append(items[i])
            i += 1
        return result

    # -- phrases -----------------------------------------------------------------------------------------------

    def read(self) -> list[Phrase]:
        phrases: list[Phrase] = []
        listing = False  # after "We need:" at a line end, bullet lines are items of the list
        carried = False  # a list that runs on after a ';' ("collect: 1. budget; 2. the reason …")
        open_at_end = False
        for start, end, terminator in self.clauses():
            text = self.folded[start:end]
            bullet = _LIST_MARK.match(text) is not None
            # A question ("¿Qué les trajo hasta nosotros?") asks for information in itself.
            # A clause that opens with "and"/"y"/"et" after an open list (even after a '?') runs that list on.
            carried = carried or (open_at_end and self._joined(start, end))
            found, open_at_end = self._clause(start, end, whole=terminator == "?" or (listing and bullet) or carried)
            phrases.extend(found)
            listing = text.rstrip().endswith(":") or (listing and bullet)
            carried = terminator == ";" and open_at_end
        return phrases

    def _joined(self, start: int, end: int) -> bool:
        """A clause that opens with a list joiner ("… who directed the movie? and the type of movie.")."""
        words = _WORD.findall(self.folded, start, end)[:1]
        return bool(words) and any(words[0] in joiners for joiners in self.rules.options.list_joiners.values())

    def _clause(self, start: int, end: int, *, whole: bool = False) -> tuple[list[Phrase], bool]:
        """The clause's phrases, and whether its list is still open at its end."""
        items = self.items(start, end)
        # Items before the collect marker that open a context clause are context even in a list carried on.
        first_marker = next((n for n, i in enumerate(items) if self._marker_end(self.folded[i.start:i.end])
                             is not None), -1)
        opened = whole
        for item in items:
            text = self.folded[item.start:item.end]
            marker = self._marker_end(text)
            if item.cut_before == ":":
                opened = True
            if marker is not None and not _inside(item.start + marker, self.purpose):
                opened = True
                item.start += marker
            elif opened and any(p.match(_strip_leads(text, self.leads)) for p in self.starters):
                opened = False
            item.in_scope = opened
        # Before a colon comes a heading ("Captar socios para nuestro gimnasio:"), even with a collect verb.
        colon = next((n for n, item in enumerate(items) if item.cut_before == ":"), None)
        if colon is not None and sum(item.in_scope for item in items[:colon]) >= 2:
            colon = None  # a list already running: the colon gives its last item's options ("size: compact, …")
        for item in items[: colon or 0]:
            item.in_scope = False
        if colon is not None and self.first_marker is not None and end <= self.first_marker:
            # Before the sentence that asks, a colon lists what the company offers ("Excursions from the port:
            # island tour, waterfalls, lagoon"), unless most of its items name information to collect.
            listed = items[colon:]
            if 2 * sum(bool(self._kinds_in(i.start, i.end)) for i in listed) < len(listed):
                for item in listed:
                    item.in_scope = False
        heading = colon if colon is not None and any(self._kinds_in(i.start, i.end) for i in items[colon:]) else 0
        # A clause about the company ("Our firm describes its service as ...") or a subordinate clause before the
        # list ("When a customer contacts us, we want to know ...") is context: none of its items is collected.
        statement = bool(items) and not items[0].in_scope and self._opens_context(items[0])
        # A bare list ("Budget, area and contact details.") with a keyword collects every item.
        # Not a sentence before the first collect marker, though: that is the company's own heading ("Remorquage
        # et dépannage dans la région de Québec. Demander où se trouve le véhicule, …").
        bare = not statement and not any(i.in_scope or i.cut_before == ":" for i in items) and len(items) >= 2 \
            and not (self.first_marker is not None and end <= self.first_marker)
        if bare and any(self._kinds_in(i.start, i.end) for i in items):
            for item in items:
                item.in_scope = True
        phrases: list[tuple[Phrase, str]] = []
        for position, item in enumerate(items):
            if position < heading:  # a heading ("Wedding venue enquiries:") names the list, not information
                text = self.folded[item.start:item.end].strip(" :")
                if text and not self._only_marker(text):
                    self.context.append(self.ft.original(item.start, item.end).strip(" :"))
                continue
            if item.cut_before == "purpose" and not item.in_scope and not self._kinds_in(item.start, item.end):
                continue
            phrase = self._phrase(item)
            if phrase is None:
                continue
            if (not item.in_scope and statement) or (position < first_marker and self._opens_context(item)):
                self.context.append(phrase.text)
                continue
            heading = not item.in_scope and self.first_marker is not None and item.end <= self.first_marker
            if (phrase.kind is None and not phrase.options and not item.in_scope) or heading:
                if not self._only_marker(self.folded[item.start:item.end]):
                    self.context.append(phrase.text)
                continue
            phrases.append((phrase, item.cut_before))
        return self._share_heads(phrases), bool(items) and items[-1].in_scope

    def _opens_context(self, item: _Item) -> bool:
        text = _LIST_MARK.sub("", self.folded[item.start:item.end]).lstrip(" \t,.:;-—–¿¡*•\"'“«")
        return any(p.match(text) for p in self.openers)

    def _only_marker(self, text: str) -> bool:
        """ "We need:" — a collect marker with nothing after it opens a list; it is not context."""
        stripped = text.strip(" :.,")
        return any(p.fullmatch(stripped) or p.fullmatch(_strip_leads(stripped, self.leads)) for p in self.collect)

    def _marker_end(self, text: str) -> int | None:
        """Where the last collect marker of an item ends ("we want to know| the budget"), if any."""
        offset = len(text) - len(text.lstrip())
        ends = [match.end() + offset for pattern in self.collect for match in pattern.finditer(text.lstrip())
                if match.start() == 0 or not pattern.pattern.startswith("^")]
        # A marker with nothing after it is the item's own verb ("the language the student wants to learn").
        ends = [end for end in ends if _WORD.search(text, end)]
        return max(ends) if ends else None

    def _article(self, item: _Item, start: int) -> str:
        """The definite article right before the phrase core, in the manager's spelling (questions keep it)."""
        words = list(_WORD.finditer(self.folded, item.start, start))
        if words and words[-1].group(0) in self.articles and not re.search(r"['’]", self.folded[item.start:start]):
            return self.ft.original(words[-1].start(), words[-1].end())
        return ""

    def _core(self, item: _Item) -> tuple[int, int]:
        start, end = item.start, item.end
        text = self.folded[start:end]
        stripped = _strip_leads(text, self.leads)
        start += len(text) - len(stripped)
        changed = True
        while changed:
            changed = False
            text = self.folded[start:end].rstrip(" .,'\"!?")
            end = start + len(text)
            for pattern in self.trails:
                match = pattern.search(text)
                if match and match.start() > 0:
                    end = start + match.start()
                    changed = True
                    break
        return start, end

    def _measure(self, start: int, end: int) -> tuple[int, str] | None:
        """A unit scope ending the phrase ("… in metres", "… en m²"): where the phrase ends without it, and the unit
        in the manager's spelling; the scope is reported as context."""
        text = self.folded[start:end]
        for pattern in self.measures:
            match = pattern.search(text)
            if match is not None and match.start() > 0:
                self.context.append(self.ft.original(start + match.start(), end).strip())
                return start + match.start(), self.ft.original(start + match.start("unit"), start + match.end("unit"))
        return None

    def _currency_scope(self, start: int, end: int) -> int | None:
        """A currency scope ending the phrase ("… in Fijian dollars", "… en FCFA"): where the phrase ends without
        it; the scope is reported as context."""
        text = self.folded[start:end]
        for pattern in self.currencies:
            match = pattern.search(text)
            if match is not None and match.start() > 0:
                self.context.append(self.ft.original(start + match.start(), end).strip())
                return start + match.start()
        return None

    def _measured_kind(self, kind: str | None, start: int, end: int) -> str | None:
        """The kind a phrase with a unit scope gets: its own when that is a quantity or money; otherwise the
        generic count, unless its head noun is plural ("las medidas en centímetros": several numbers, free text)."""
        from engine.compiler.phrasing import head_noun, is_plural

        rule = self.rules.kind(kind) if kind else None
        if rule is not None and rule.criterion.value in ("quantity", "money"):
            return kind
        head = head_noun(self.ft.original(start, end), self.rules)
        if head is not None and any(is_plural(fold_word(head), lang, self.rules.phrasing)
                                    for lang in self.rules.phrasing.inflection):
            return kind
        return next((k.key for k in self.rules.objective_kinds
                     if k.criterion.value == "quantity" and "unit" not in k.params), kind)

    def _phrase(self, item: _Item) -> Phrase | None:
        start, end = self._core(item)
        if end <= start or not _WORD.search(self.folded[start:end]):
            return None
        measure = self._measure(start, end)
        if measure is not None:
            end = measure[0]
        cut = self._currency_scope(start, end) if measure is None else None
        priced = cut is not None
        if cut is not None:
            end = cut
        parens = [(s, e) for s, e in self.parens if start <= s < end]
        options, is_open = list(item.options), item.open_options
        pieces, last = [], start
        for p_start, p_end in parens:
            pieces.append(self.ft.original(last, p_start))
            last = p_end
            listed, open_list = _listed(self.ft.original(p_start + 1, p_end - 1), self.rules)
            if len(listed) >= self.rules.options.min_options and not options and all(
                    len(_WORD.findall(x)) <= self.rules.options.max_option_words for x in listed):
                options, is_open = listed, open_list
        pieces.append(self.ft.original(last, end))
        text = " ".join(" ".join(pieces).split()).strip(" ,.")
        kinds = self._kinds_in(start, end)
        forms: list[str] = []
        if not options:
            options, forms = self._choice_options(start, end, bare=not kinds)
            if options:  # a keyword inside the options ("full-time or part-time") does not name the phrase's kind
                first = self.folded.find(fold_word(options[0]), start, end)
                kinds = [m for m in kinds if first < 0 or m.end <= first]
        match = self._head_kind(kinds, start, end)
        if match is not None and item.option_span and match.start >= item.option_span[0]:
            match = None  # a keyword inside the listed options does not name the phrase's kind
        unit = None
        kind = match.label if match else None
        if kind is not None and self.rules.kind(kind) is not None:
            rule = self.rules.kind(kind)
            assert rule is not None
            if rule.criterion.value == "quantity" and "unit" not in rule.params:
                unit = self._unit(start, end)
            unit_match = next((m for m in kinds if unit is not None and m.label != kind
                               and self.folded.startswith(fold_word(unit), m.start)), None)
            unit_rule = self.rules.kind(unit_match.label) if unit_match else None
            if unit_match is not None and unit_rule is not None and unit_rule.criterion.value == "contact":
                kind, match, unit = unit_match.label, unit_match, None  # "un número de celular" is a contact
            counted = self._counted(start, end)
            if counted is not None and match is not None and match.start >= counted[0] \
                    and rule.criterion.value not in ("quantity", "money", "contact"):
                # "le nombre d'heures", "cuántos días": a count of the thing the keyword names, not the thing
                kind, match, unit = self._count_kind(), None, counted[1]
        elif kind is None and (unit := self._unit(start, end)) is not None:
            kind = next((k.key for k in self.rules.objective_kinds
                         if k.criterion.value == "quantity" and "unit" not in k.params), None)
        if priced and kind is None and not options:  # "their total in Fijian dollars": an amount of money
            kind = next((k.key for k in self.rules.objective_kinds if k.criterion.value == "money"), None)
        measured = False
        if measure is not None and not options:
            measured_kind = self._measured_kind(kind, start, end)
            rule = self.rules.kind(measured_kind) if measured_kind else None
            if rule is not None and rule.criterion.value == "quantity" and "unit" not in rule.params:
                kind, unit, measured = measured_kind, measure[1], True
        return Phrase(start=start, end=end, text=text, kind=kind, keyword=match.keyword if match else "",
                      options=tuple(options), open_options=is_open, unit=unit, option_head=item.option_head,
                      option_forms=tuple(forms),
                      source=self.ft.original(start, end), article=self._article(item, start), measured=measured)

    def _head_kind(self, kinds: list[Match], start: int, end: int) -> Match | None:
        """The keyword that names the phrase's head noun ("destination-to-origin flight date" is a date, not a
        place; "total costs" is money); the first keyword when none covers the head."""
        from engine.compiler.phrasing import head_noun

        if not kinds:
            return None
        first = self.rules.kind(kinds[0].label)
        if first is not None and first.criterion.value in ("quantity", "money"):
            return kinds[0]  # a count or an amount governs its noun ("how many of the vehicles")
        head = head_noun(self.ft.original(start, end), self.rules)
        at = re.search(rf"(?<![\w'’-]){re.escape(head)}(?![\w'’-])", self.folded[start:end]) if head else None
        if at is None:
            return kinds[0]
        position = start + at.start()
        question = all(w in self.stop for w in _WORD.findall(kinds[0].keyword))
        if question and not self.folded[kinds[0].end:position].strip(" "):
            question = False  # "para qué fecha": the question word asks for the noun right after it
        if question:
            return kinds[0]  # a question word governs its clause ("where the vehicle is parked")
        return next((m for m in kinds if m.start <= position < m.end), kinds[0])

    def _choice_options(self, start: int, end: int, bare: bool = False) -> tuple[list[str], list[str]]:
        """ "whether they want to rent or buy" -> rent, buy; "whether it's a sailing yacht or a motor boat" ->
        sailing yacht, motor boat; with ``bare`` (an item naming no kind) also a lone "mâle ou femelle"."""
        folded = self.folded[start:end]
        halves = re.split(rf"\s+\b(?:{self.alternatives})\b\s+", folded, maxsplit=1)
        if len(halves) != 2:
            return [], []
        limit = self.rules.options.max_option_words
        chosen = bool(self.choice) and re.match(rf"(?:{self.choice})\b", folded) is not None
        if not chosen and not (bare and 0 < len(_WORD.findall(halves[0])) <= _BARE_OPTION_WORDS
                               and 0 < len(_WORD.findall(halves[1])) <= _BARE_OPTION_WORDS):
            return [], []
        left = _tail(_WORD.findall(halves[0]), self.stop, limit)
        right_start = start + len(folded) - len(halves[1])
        words = list(_WORD.finditer(self.folded, right_start, end))
        skipped = False
        while words and words[0].group(0) in self.stop:  # "or a motor boat", "o de sal": the article is not the option
            words, skipped = words[1:], True
        # The second option runs to its first stopword: "own or rent the home" -> own, rent; and both are as
        # long as the shorter one: "buscan alquilar o comprar" -> alquilar, comprar.
        cut = next((n for n, w in enumerate(words) if w.group(0) in self.stop), len(words))
        if skipped and cut < len(words):
            return [], []  # "o un diagnóstico del taller pendiente": a phrase of its own, not an option
        right = words[:cut]
        if not left or not right or len(right) > limit:
            return [], []
        # The fuller wording of each option is kept as another way to name it ("lavado normal", "en PDF firmado").
        full_left = self.ft.original(start + len(halves[0]) - len(" ".join(left)), start + len(halves[0]))
        full_right = self.ft.original(right[0].start(), right[-1].end())
        width = min(len(left), len(right))
        left, right = left[len(left) - width:], right[:width]
        left_start = start + len(halves[0]) - len(" ".join(left))
        options = [self.ft.original(left_start, start + len(halves[0])),
                   self.ft.original(right[0].start(), right[-1].end())]
        return options, [f if f != o else "" for f, o in zip((full_left, full_right), options, strict=True)]

    def _counted(self, start: int, end: int) -> tuple[int, str] | None:
        """Where the counted word after a unit trigger starts ("number of |hours"), and that word."""
        for pattern in self.units:
            match = pattern.search(self.folded, start, end)
            if match is not None and match.group("unit") not in self.stop:
                return match.start("unit"), self.ft.original(match.start("unit"), match.end("unit"))
        return None

    def _count_kind(self) -> str | None:
        """The generic count kind (a quantity with no unit of its own)."""
        return next((k.key for k in self.rules.objective_kinds
                     if k.criterion.value == "quantity" and "unit" not in k.params), None)

    def _unit(self, start: int, end: int) -> str | None:
        """The word right after a unit trigger ("how many employees", "cuántos alumnos")."""
        for pattern in self.units:
            match = pattern.search(self.folded, start, end)
            if match is not None and match.group("unit") not in self.stop:
                return self.ft.original(match.start("unit"), match.end("unit"))
        return None

    def _bare_noun(self, phrase: Phrase) -> bool:
        """Content words only, after an article ("bathrooms", "the garden"): a head can be shared with it; not
        with a phrase of its own structure ("type of show", "genre of the movie")."""
        words = _WORD.findall(self.folded[phrase.start:phrase.end])
        while words and words[0] in self.articles:
            words = words[1:]
        return bool(words) and not any(w in self.stop for w in words)

    def _same_criterion(self, left: Phrase, right: Phrase) -> bool:
        """Both phrases name kinds of one criterion kind (a date and a time), so a modifier can be shared."""
        left_kind = self.rules.kind(left.kind) if left.kind else None
        right_kind = self.rules.kind(right.kind) if right.kind else None
        return left_kind is not None and right_kind is not None and left_kind.criterion == right_kind.criterion

    def _head_keyword(self, phrase: Phrase) -> str:
        """The kind keyword that ends the phrase ("dates" in "check-out dates"), if another one precedes it."""
        inside = [m for m in self.matches if phrase.start <= m.start and m.end == phrase.end and m.label == phrase.kind]
        return inside[-1].keyword if inside and inside[-1].start > phrase.start else ""

    def _share_heads(self, phrases: list[tuple[Phrase, str]]) -> list[Phrase]:
        """ "pick-up and return dates", "the number of bedrooms and bathrooms": coordinated items share a head."""
        joiners = {j for js in self.rules.options.list_joiners.values() for j in js} - {
            a for alts in self.rules.options.alternative_joiners.values() for a in alts}
        result = [p for p, _ in phrases]
        for index in range(len(result) - 1):
            left, right = result[index], result[index + 1]
            if phrases[index + 1][1] not in joiners:
                continue
            if right.measured and left.kind in (None, self._count_kind()) and not left.options and left.unit is None \
                    and self._bare_noun(left) and self._bare_noun(right):
                # "the boat's length and draught in metres": the unit scope ends the coordination, so both share it
                measured_kind = self._measured_kind(None, left.start, left.end)
                if measured_kind is not None:
                    result[index] = replace(left, kind=measured_kind, unit=right.unit, measured=True)
                continue
            if any(p.match(self.folded[right.start:right.end]) for p in self.questions):
                continue  # "… y qué tardes le vienen bien" is its own question
            left_words, right_words = _WORD.findall(left.text), _WORD.findall(right.text)
            right_content = [w for w in _WORD.findall(self.folded[right.start:right.end]) if w not in self.stop]
            if left.kind is None and not left.options and len(left_words) <= 2 and right.kind is not None \
                    and self.folded[right.start:right.end].endswith(right.keyword) \
                    and not any(w in self.stop for w in _WORD.findall(right.keyword)) \
                    and len(right_words) > len(_WORD.findall(right.keyword)):
                head = self.ft.original(right.end - len(right.keyword), right.end)
                result[index] = replace(left, text=f"{left.text} {head}", kind=right.kind, keyword=right.keyword)
            elif left.kind is not None and left.kind == right.kind and right.keyword != left.keyword \
                    and (tail := self._head_keyword(right)) and tail not in self.folded[left.start:left.end] \
                    and self.folded[left.start:left.end].endswith(left.keyword):
                # "check-in and check-out dates": the shared head noun completes the first phrase too.
                result[index] = replace(left, text=f"{left.text} {self.ft.original(right.end - len(tail), right.end)}")
            elif right.kind is not None and right.kind != left.kind and left.kind is not None \
                    and self._same_criterion(left, right) and len(right_words) == 1 \
                    and self.folded[right.start:right.end] == right.keyword and 2 <= len(left_words) <= 3 \
                    and self.folded[left.start:left.end].endswith(left.keyword):
                # "the pick-up date and time": the modifier of the head noun is shared ("pick-up time").
                modifier = left_words[:-1]
                if not any(w in self.stop for w in map(fold_word, modifier)):
                    result[index + 1] = replace(right, text=f"{' '.join(modifier)} {right.text}")
            elif right.kind is None and not right.options and 1 <= len(right_content) <= 2 \
                    and self._bare_noun(right) \
                    and left.kind is not None and self.folded[left.start:left.end].startswith(left.keyword):
                head_words = left_words[: len(left_words) - len(right_content)]
                # A kind read from a count, a unit or a price has no keyword: then no head noun is shared.
                if head_words and left.keyword and len(" ".join(head_words)) >= len(left.keyword.split()[0]):
                    text = f"{' '.join(head_words)} {right.text}"
                    unit = right.text if left.unit is not None else None
                    result[index + 1] = replace(right, text=text, kind=left.kind, keyword=left.keyword, unit=unit)
        return result


def read_intent(intent: str, rules: CompilerRules, language: str | None = None) -> IntentReading:
    """The phrases of the intent; ``language`` (the intent's) picks which lead-in words are stripped."""
    reader = _Reader(intent, rules, language)
    phrases = reader.read()
    present = {p.kind for p in phrases}
    for kind in rules.objective_kinds:
        if kind.key in present:
            continue
        for language, sources in sorted(kind.implied_by.items()):
            for pattern in compile_patterns(sources, f"compiler.json {kind.key}.implied_by/{language}"):
                hit = next((m for m in pattern.finditer(reader.folded) if not _inside(m.start(), reader.purpose)), None)
                if hit is not None and kind.key not in present:
                    phrases.append(Phrase(start=hit.start(), end=hit.end(), text=reader.ft.original(*hit.span()),
                                          kind=kind.key, keyword=hit.group(0), implied=True,
                                          source=reader.ft.original(*hit.span())))
                    present.add(kind.key)
    phrases.sort(key=lambda p: p.start)
    return IntentReading(folded=reader.folded, phrases=phrases, purpose=reader.purpose, context=reader.context)
