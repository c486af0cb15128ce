"""Answerability by support: does a retrieved passage state what the question asks for?

A fixed relevance score cannot separate "the right section, worded differently" from "a related section that
does not answer" (the clutch price vs the oil-change price). Instead each question is taken apart into the
content terms it asks about (question words, stopwords and frame words such as "cost" removed) and every term
is looked up in the passage:

- ``matched``: the passage states it (same stem in any rule language, or a one-letter-typo-close stem);
- ``elsewhere``: the corpus states it, but in other passages: the asked thing is not this passage's topic;
- ``unknown``: the corpus never states it (a paraphrase, or something the company does not mention).

Across languages the terms cannot be compared word by word, so the multilingual embedding decides: the
question's similarity to the passage body and title, as a z-score against the corpus's own calibration
(``calibration.py``); and an asked word no concept group covers is compared with the other language's corpus
words through the same embedding (``lexicon.py``: a calibrated outlier counts as stated there). Besides its
words, what a question asks for must fit what the passage states: an asked kind (a price, a clock time, a date),
an asked amount (``quantities.py``: "10 sessions" where the passage states only "5 sessions" is a near miss), a
proper name or an acronym (stated where the corpus spells it out); these precise checks veto. Whether the rest
adds up to an answer is decided by a small logistic model over corpus-normalised features of the passage
(``decision.py``: z-scores, standing and margin, shares of the asked words stated here, stated only elsewhere or
nowhere), fitted on labelled companies. Coefficients, thresholds and word lists are rule data (``grounding``
and the language sections of rules/retrieval.json).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise

from rapidfuzz import fuzz, process

from engine.retrieval.analysis import AnalyzerSet, QueryWord, TermStats, is_number, tokens
from engine.retrieval.calibration import Calibration
from engine.retrieval.concepts import Concepts
from engine.retrieval.cue_patterns import CueSet
from engine.retrieval.decision import AnswerModel, clip
from engine.retrieval.lexicon import Lexicon
from engine.retrieval.models import Passage, ScoredPassage
from engine.retrieval.names import calendar_names, initials_index, is_acronym, is_ordinary, ordinary_names
from engine.retrieval.quantities import Quantity, counted, other_amounts, quantities, unstated_amounts
from engine.retrieval.retrieval_rules import GroundingSettings, RetrievalRules
from engine.text import fold

_CASED_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_SENTENCE_SPLIT = re.compile(r"[.!?¿¡:;,\n]+")
_FUZZY_MIN_LEN = 5
_PREFIX_MIN_LEN = 4
_PREFIX_MAX_EXTRA = 2
_MAX_SPELLINGS = 2
_FORMS_MEMO_ENTRIES = 4096  # asked-word variant sets remembered per judge (a few hundred bytes each)


@lru_cache(maxsize=8)
def _calendar_words(languages: tuple[str, ...]) -> frozenset[str]:
    """Weekday and month names (wide and abbreviated) in every rule language, folded."""
    words = {word for value in calendar_names(languages) for word in tokens(value)}
    return frozenset(w for w in words if len(w) > 2)


@dataclass(frozen=True)
class AskedTerm:
    word: QueryWord
    weight: float
    name: bool  # capitalised inside a sentence (a proper name)
    # the asked action ("do you *repair* …") or a bare number ("the 125"): counts when stated, never decides a
    # near miss (an unstated verb is usually a paraphrase; an unstated number a bound or a detail)
    verb: bool = False
    acronym: bool = False
    translatable: bool = False  # belongs to a concept group: checkable in a passage of another language
    stated_in: frozenset[str] = frozenset()  # ids of the passages that state it (stem, concept or typo match)
    # ids of passages in another language than the question's whose words the embedding matches (lexicon.py)
    translated_in: frozenset[str] = frozenset()
    titled_in: frozenset[str] = frozenset()  # ids of the passages whose own title (heading) states it
    checked: bool = False  # looked up across languages through the embedding (found or not: it is checkable)
    translations: tuple[str, ...] = ()  # the corpus words the embedding matched
    spelled_out: str = ""  # an acronym's words as the corpus writes them ("single sign on" for "sso")
    forms: tuple[str, ...] = ()  # the corpus index terms it matched (its concept group's words in every language)


@dataclass
class Support:
    """How one passage supports the question (kept in the answer trace)."""

    passage_id: str
    cross_lingual: bool
    coverage: float
    semantic_z: float
    standing: float = 0.0
    matched: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    answerable: bool = False
    reason: str = ""
    amounts: list[str] = field(default_factory=list)  # asked amounts the passage states only with other numbers
    features: dict[str, float] = field(default_factory=dict)  # what the answer model reads (decision.py)
    logit: float | None = None  # the model's score (None: a veto decided)
    probability: float = 0.0  # the model's probability that this passage is the answer (decide())


def function_words(rules: RetrievalRules) -> dict[str, frozenset[str]]:
    """Per language, the folded words that tell which language a question is written in."""
    return {
        code: frozenset(fold(w) for w in (*lang.stopwords, *lang.question.wh_words, *lang.frame_words))
        for code, lang in rules.languages.items()
    }


def question_language(
    text: str, rules: RetrievalRules, fallback: str, vocabularies: dict[str, frozenset[str]] | None = None
) -> str:
    """The language whose function words the question uses most (visitors switch language); ties: fallback.
    ``vocabularies``: ``function_words(rules)``, computed once by callers that ask often."""
    words = tokens(text)
    best, best_hits = fallback, -1
    for code, vocab in (vocabularies or function_words(rules)).items():
        hits = sum(1 for w in words if w in vocab)
        if hits > best_hits or (hits == best_hits and code == fallback):
            best, best_hits = code, hits
    return best


class AnswerabilityJudge:
    """Decides, per retrieved passage, whether it supports an answer to the asked sentences."""

    def __init__(
        self,
        rules: RetrievalRules,
        analyzers: AnalyzerSet,
        stats: TermStats,
        passage_terms: dict[str, frozenset[str]],
        vocabulary: frozenset[str],
        calibration: Calibration,
        passages: Sequence[Passage] = (),
        lexicon: Lexicon | None = None,
    ) -> None:
        self.rules = rules
        self.lexicon = lexicon if rules.grounding.word_match else None
        self.settings: GroundingSettings = rules.grounding
        self.analyzers = analyzers
        self.stats = stats
        # A section also states what its document and headings say it is about ("Shop › Where are you?").
        labels = {p.id: frozenset(analyzers.for_language(p.language).terms(p.label)) for p in passages if p.label}
        self.passage_terms = {pid: terms | labels.get(pid, frozenset()) for pid, terms in passage_terms.items()}
        # A heading is what the section answers (FAQ headings are questions): asked words stated there weigh more.
        self.title_terms = {
            p.id: frozenset(analyzers.for_language(p.language).terms(p.title)) for p in passages if p.title
        }
        self.vocabulary = vocabulary
        self.calibration = calibration
        decision = rules.grounding.decision
        self.model = AnswerModel(
            decision.features, decision.weights, decision.mean, decision.scale, decision.bias, decision.threshold
        )
        self._frame = frozenset(fold(w) for lang in rules.languages.values() for w in lang.frame_words)
        self._stop = frozenset().union(*(a.stopwords for a in analyzers.by_language.values()))
        self._ordinary = ordinary_names(tuple(sorted(rules.languages)))
        self.concepts = Concepts(rules, analyzers)
        languages = rules.languages.values()
        self._price_set = CueSet.of(tuple(fold(c) for lang in languages for c in lang.price_cues))
        self._clock_set = CueSet.of(tuple(fold(c) for lang in languages for c in lang.clock_cues))
        self._date_set = CueSet.of(tuple(fold(c) for lang in languages for c in lang.date_cues))
        clock = re.compile(self.settings.clock_pattern)
        calendar = _calendar_words(tuple(sorted(rules.languages)))
        self._states_clock = {p.id: bool(clock.search(fold(p.indexed_text()))) for p in passages}
        duration = re.compile(self.settings.duration_pattern)
        self._states_date = {
            p.id: self._states_clock[p.id]
            or bool(set(tokens(p.indexed_text())) & calendar)
            or bool(duration.search(fold(p.indexed_text())))
            for p in passages
        }
        price = re.compile(self.settings.price_pattern)
        free = re.compile(self.settings.free_pattern)
        self._states_price = {
            p.id: bool(free.search(fold(p.indexed_text())))
            or (bool(price.search(fold(p.indexed_text()))) and any(c.isdigit() for c in p.text))
            for p in passages
        }
        self._language = {p.id: p.language for p in passages}
        # "Are you open at night?" is answered by the hours a passage states, in whatever words.
        self._time_words = frozenset(fold(w) for lang in rules.languages.values() for w in lang.time_words)
        self._timed = frozenset(pid for pid, states in self._states_date.items() if states)
        self._price = price
        self._clock, self._free, self._duration, self._calendar = clock, free, duration, calendar
        bounds = {code: lang.amount_bounds for code, lang in rules.languages.items()}
        self._counted = {
            p.id: counted(p.indexed_text(), analyzers.for_language(p.language), bounds.get(p.language))
            for p in passages
        }
        # Acronyms the corpus spells out ("SSO" in a passage on single sign-on): initials → passage ids.
        self._initials = initials_index(((p.id, tokens(p.indexed_text())) for p in passages), self._stop)
        self._corpus_terms = frozenset().union(*self.passage_terms.values()) if passage_terms else frozenset()
        self._by_initial: dict[str, list[str]] = {}
        self._forms_memo: dict[frozenset[str], frozenset[str]] = {}
        self._forms_lock = threading.Lock()
        for term in sorted(self._corpus_terms):
            if len(term) >= _PREFIX_MIN_LEN:
                self._by_initial.setdefault(term[0], []).append(term)
        self._verb_suffixes = tuple(s for lang in rules.languages.values() for s in lang.verb_suffixes)
        self._verb_markers = frozenset(fold(w) for lang in rules.languages.values() for w in lang.verb_markers)
        self._auxiliaries = frozenset(fold(w) for lang in rules.languages.values() for w in lang.question.auxiliaries)
        self._subjects = frozenset(fold(w) for lang in rules.languages.values() for w in lang.question.subject_words)
        self._determiners = frozenset(fold(w) for lang in rules.languages.values() for w in lang.noun_determiners)

    def decide(self, supports: Sequence[Support], twins: Mapping[str, str] | None = None) -> None:
        """One question's candidates against each other (decision.py): those the model finds probable enough
        support an answer; the others keep the reason ``judge`` gave them. ``twins`` (twins.py): a passage's
        translation, whose probability is the same content's and is pooled with its own."""
        scored = [s for s in supports if s.logit is not None]
        own = dict(
            zip((s.passage_id for s in scored), self.model.probabilities([s.logit or 0.0 for s in scored]), strict=True)
        )
        for support in scored:
            twin = (twins or {}).get(support.passage_id)
            probability = own[support.passage_id] + (own.get(twin, 0.0) if twin else 0.0)
            support.probability = round(probability, 4)
            if probability >= self.model.threshold:
                support.answerable, support.reason = True, "answerability.model"

    def asked_terms(self, asked: str, language: str = "") -> list[AskedTerm]:
        """The question's content terms; with ``language`` (the question's) and a lexicon, words no stem or
        concept group finds in the other language's passages are matched there through the embedding."""
        terms = self._asked_terms(asked)
        if self.lexicon is None or not language:
            return terms
        others = sorted({lang for lang in self._language.values() if lang != language})
        if not others:
            return terms
        settings = self.settings
        candidates = [
            t
            for t in terms
            if not (t.verb or t.name or t.acronym)
            and len(t.word.surface) >= 3
            and not any(self._language[pid] != language for pid in t.stated_in)
        ]
        if not candidates:
            return terms
        vectors = self.lexicon.vectors_for([t.word.surface for t in candidates])
        out: list[AskedTerm] = []
        for term in terms:
            if not any(term is c for c in candidates):
                out.append(term)
                continue
            found: set[str] = set()
            words: list[str] = []
            for other in others:
                for match, pids in self.lexicon.match(
                    vectors[term.word.surface], other, settings.word_match_min_z, settings.word_match_min_gap
                ):
                    found |= pids
                    words.append(match.word)
            # A translated word weighs as rare as the passages stating its translation (not as an unseen word).
            n, docs = len(found), self.stats.num_docs
            weight = math.log(1.0 + (docs - n + 0.5) / (n + 0.5)) if found and not term.stated_in else term.weight
            out.append(
                replace(term, translated_in=frozenset(found), checked=True, translations=tuple(words), weight=weight)
            )
        return out

    def _asked_terms(self, asked: str) -> list[AskedTerm]:
        names = set()
        for sentence in _SENTENCE_SPLIT.split(asked):
            for word in _CASED_WORD.findall(sentence)[1:]:
                folded = fold(word)
                if word[0].isupper() and not is_acronym(word) and not is_ordinary(folded, self._ordinary):
                    names.add(folded)
        acronyms = {fold(w) for w in _CASED_WORD.findall(asked) if is_acronym(w)}
        verbs = self._verbs(asked)
        out: list[AskedTerm] = []
        for word in self.analyzers.query_words(asked):
            if word.surface in self._frame or len(word.surface) < 2:
                continue
            number = is_number(word.surface)
            known = [self.stats.idf(v) for v in word.variants if self.stats.doc_freq.get(v, 0) > 0]
            weight = min(known) if known else self.stats.idf("\x00unseen")
            expanded = self.concepts.expand(word)
            forms = self._forms(expanded.variants)
            stated = frozenset(pid for pid, terms in self.passage_terms.items() if forms & terms)
            titled = frozenset(pid for pid, terms in self.title_terms.items() if forms & terms)
            spelled = self._initials.get(word.surface, {}) if word.surface in acronyms else {}
            if len(spelled) > _MAX_SPELLINGS:  # many word runs share these initials: chance, not a spelling
                spelled = {}
            for pids in spelled.values():
                stated |= pids
            if word.surface in self._time_words:
                stated |= self._timed
                n, docs = len(stated), self.stats.num_docs
                weight = math.log(1.0 + (docs - n + 0.5) / (n + 0.5)) if stated else weight
            out.append(
                AskedTerm(
                    word=expanded,
                    translatable=expanded is not word,
                    stated_in=stated,
                    titled_in=titled,
                    spelled_out=" ".join(sorted(spelled)),
                    forms=tuple(sorted(forms)) if expanded is not word else (),
                    weight=weight,
                    name=word.surface in names,
                    verb=word.surface in verbs or number,
                    acronym=word.surface in acronyms,
                )
            )
        return out

    def asked_amounts(self, asked: str, language: str) -> list[Quantity]:
        """The question's numbers with what they count; prices and budgets ("under 300 euros") are bounds, not
        the asked thing, and are left to the price check."""
        analyzer = self.analyzers.for_language(language)
        return [q for q in quantities(asked, analyzer) if not self._price.search(q.text)]

    def unstated_amounts(self, passage_id: str, amounts: Sequence[Quantity]) -> list[Quantity]:
        """The asked amounts whose number the passage states for nothing (quantities.unstated_amounts)."""
        return unstated_amounts(list(amounts), self._counted.get(passage_id, {}))

    def asked_kind(self, asked: str) -> str:
        """What the question asks for, when it is a kind a passage must visibly state: "price", "clock" (a time
        of day), "date" (a time, weekday or month), else ""."""
        if self._price_set.anywhere(fold(asked)):
            return "price"
        # "when" opens a question; "… when I am away" does not
        starts = [fold(s).strip(" ¿¡") for s in _SENTENCE_SPLIT.split(asked) if s.strip(" ¿¡")]
        if self._clock_set.opening(starts):
            return "clock"
        return "date" if self._date_set.opening(starts) else ""

    def states_kind(self, passage_id: str, kind: str) -> bool:
        table = {"price": self._states_price, "clock": self._states_clock, "date": self._states_date}.get(kind)
        return True if table is None else table.get(passage_id, True)

    def sentence_states_kind(self, sentence: str, kind: str) -> bool:
        """One sentence states the asked kind (a price, a clock time, a date), by the patterns that judge passages;
        False when nothing is asked."""
        folded = fold(sentence)
        if kind == "price":
            return bool(self._free.search(folded)) or (
                bool(self._price.search(folded)) and any(c.isdigit() for c in sentence)
            )
        if kind == "clock":
            return bool(self._clock.search(folded))
        if kind == "date":
            return (
                bool(self._clock.search(folded))
                or bool(set(tokens(sentence)) & self._calendar)
                or bool(self._duration.search(folded))
            )
        return False

    def other_language_forms(self, terms: Sequence[AskedTerm], language: str) -> list[str]:
        """Corpus terms a concept group matched in passages of another language than the question's ("parking"
        → "aparcamiento"): searched on the keyword side too, or a bilingual corpus's same-language sections,
        which share only common words with the question, outrank the one that states the asked thing."""
        return [
            form
            for t in terms
            if t.forms and any(self._language[pid] != language for pid in t.stated_in)
            for form in t.forms
        ]

    def _only_here(self, term: AskedTerm, passage: Passage) -> bool:
        same = {pid for pid in term.stated_in if self._language[pid] == passage.language}
        return same == {passage.id}

    def _verbs(self, asked: str) -> set[str]:
        """Words that are the asked action: a verb ending of a rule language ("arregláis"), or the word right
        after an auxiliary and its subject ("do you *repair*", "can I *bring*")."""
        words = tokens(asked)
        # An ending is matched as written: "ís" marks "abrís" but not "crisis"; an unaccented one also matches
        # the folded word ("arreglais").
        found: set[str] = set()
        for w in (m.lower() for m in _CASED_WORD.findall(asked)):
            folded = fold(w)  # once per word, not once per suffix
            if any(len(w) > len(s) + 2 and (w.endswith(s) or folded.endswith(s)) for s in self._verb_suffixes):
                found.add(folded)
        for i in range(len(words) - 2):
            # "do you *repair*", but "does the croissant cost": after a determiner comes the subject's noun
            if (
                words[i] in self._auxiliaries
                and words[i + 1] in self._subjects
                and words[i + 1] not in self._determiners
            ):
                found.add(words[i + 2])
        cased = _CASED_WORD.findall(asked)
        for before, word in pairwise(cased):
            if fold(before) in self._verb_markers and word.islower():
                found.add(fold(word))
        return found

    def _forms(self, variants: frozenset[str]) -> frozenset[str]:
        """The corpus terms an asked word's variants match: equal stems, or stems one typo away. Memoised per
        judge (its corpus terms are fixed at construction): visitors ask the same words, and each miss runs a
        fuzzy search over the corpus terms."""
        found = self._forms_memo.get(variants)
        if found is None:
            found = self._match_forms(variants)
            with self._forms_lock:
                if len(self._forms_memo) >= _FORMS_MEMO_ENTRIES:
                    self._forms_memo.clear()  # bounded; refilled by the words asked next
                self._forms_memo[variants] = found
        return found

    def _match_forms(self, variants: frozenset[str]) -> frozenset[str]:
        forms = set(variants & self._corpus_terms)
        for variant in variants:
            if len(variant) >= _PREFIX_MIN_LEN:  # "buy" / "buyer": Snowball keeps some derivations apart
                forms.update(
                    t
                    for t in self._by_initial.get(variant[0], ())
                    if 0 < abs(len(t) - len(variant)) <= _PREFIX_MAX_EXTRA
                    and (t.startswith(variant) or variant.startswith(t))
                )
            if len(variant) < _FUZZY_MIN_LEN:
                continue
            choices = [t for t in self._by_initial.get(variant[0], ()) if len(t) >= _FUZZY_MIN_LEN]
            for match, _, _ in process.extract(
                variant, choices, scorer=fuzz.ratio, score_cutoff=self.settings.fuzzy_min_ratio, limit=None
            ):
                forms.add(match)
        return frozenset(forms)

    def judge(
        self,
        hit: ScoredPassage,
        terms: Sequence[AskedTerm],
        language: str,
        rival: float,
        kind: str = "",
        amounts: Sequence[Quantity] = (),
        leads: bool | None = None,
        top_lexical: float = 0.0,
    ) -> Support:
        """``rival``: the best standing among the other retrieved passages (a clear winner stands out);
        ``kind``: what the question asks for (``asked_kind``), which the passage must visibly state;
        ``amounts``: the asked quantities (``asked_amounts``), which the passage must not state otherwise;
        ``leads``: no better-ranked passage could answer (default: ranked first); ``top_lexical``: the best
        keyword (BM25) score among the retrieved passages."""
        settings = self.settings
        passage = hit.passage
        cross = passage.language != language
        body_z = self.calibration.body_z(hit.dense_score)
        title_z = self.calibration.title_z(hit.title_score) if hit.title_score else body_z
        semantic = max(body_z, title_z)
        standing = max(hit.dense_standing, hit.title_standing)
        support = Support(
            passage_id=passage.id,
            cross_lingual=cross,
            coverage=0.0,
            semantic_z=round(semantic, 3),
            standing=round(standing, 3),
        )
        rare = max(1, int(settings.elsewhere_max_share * len(self.passage_terms)))
        total = matched = top_matched = verbatim = 0.0
        # Some asked word is stated here only as the embedding's cross-lingual match.
        translated = cross and any(passage.id in t.translated_in and passage.id not in t.stated_in for t in terms)
        unknown_names: list[str] = []
        unknown_acronyms: list[str] = []
        specific_elsewhere: list[AskedTerm] = []
        specific_unknown: list[AskedTerm] = []
        for term in terms:
            if passage.id in term.stated_in or (cross and passage.id in term.translated_in):
                total += term.weight
                matched += term.weight
                verbatim += term.weight if passage.id in term.stated_in else 0.0
                top_matched = max(top_matched, term.weight)
                support.matched.append(term.word.surface)
                continue
            # Only passages in the judged passage's language can show that *this* passage omits the term.
            others = sum(
                1
                for pid in (term.stated_in | term.translated_in) - {passage.id}
                if self._language[pid] == passage.language
            )
            # Across languages a word outside every concept group cannot be checked: it is left out, not held
            # against the passage. An unstated action verb is a paraphrase more often than a different ask.
            checkable = not cross or term.translatable or term.name or others > 0
            if not term.verb and not (term.acronym and not others):
                # Where the embedding's word match is the witness, an asked word the same lookup found nowhere
                # counts in full (it still vetoes nothing: it may be a paraphrase).
                full = checkable or (translated and term.checked)
                total += term.weight if full else term.weight * settings.unverifiable_weight
            if others:
                support.elsewhere.append(term.word.surface)
                if not term.verb and others <= rare:
                    specific_elsewhere.append(term)
            else:
                support.unknown.append(term.word.surface)
                if term.name:
                    unknown_names.append(term.word.surface)
                elif term.acronym and len(term.word.surface) >= 3 and not cross and not term.stated_in:
                    unknown_acronyms.append(term.word.surface)
                elif checkable and not term.verb and not term.acronym:
                    specific_unknown.append(term)
        support.coverage = round(matched / total, 4) if total > 0 else 0.0
        # Within one language, an acronym the corpus neither uses nor spells out, asked about with nothing else
        # the passage states ("¿Trabajáis con XYZ?" beside a list of other insurers), names something the
        # documents never mention; beside stated words ("are the XYZ fees included?") it is a paraphrase.
        if unknown_acronyms and not any(
            passage.id in t.stated_in and not t.verb for t in terms if t.word.surface not in unknown_acronyms
        ):
            unknown_names.extend(unknown_acronyms)
        # Precise vetoes name what is missing (the near-miss message); everything else is the fitted model's call.
        if unknown_names and settings.reject_unknown_names:
            support.reason = "answerability.unknown_name"
        elif not self.states_kind(passage.id, kind):
            support.reason = f"answerability.no_{kind}"
        elif other := other_amounts(list(amounts), self._counted.get(passage.id, {})):
            support.reason, support.amounts = "answerability.other_amount", [q.text for q in other]
        elif settings.veto_asked_elsewhere and (
            any(t.name for t in specific_elsewhere)
            or (top_matched > 0 and any(t.weight >= top_matched for t in specific_elsewhere))
        ):
            # An asked name, or an asked word weighing more than anything stated here, is the topic of a few
            # other sections: this one is a sibling ("gluten-free bread" beside gluten-free muffins).
            support.reason = "answerability.asked_elsewhere"
        asked_weight = sum(t.weight for t in terms) or 1.0
        support.features = {
            "semantic_z": clip(semantic),
            "body_z": clip(body_z),
            "title_z": clip(title_z),
            "standing": clip(standing),
            "gap": clip(standing - rival),
            "coverage": support.coverage,
            "verbatim": round(verbatim / total, 4) if total > 0 else 0.0,
            "cross": float(cross),
            "leads": float(hit.rank == 1 if leads is None else leads),
            "reciprocal_rank": 1.0 / hit.rank,
            "only_here": float(any(self._only_here(t, passage) for t in terms if not t.verb)),
            "translated": float(translated),
            "title_coverage": sum(t.weight for t in terms if passage.id in t.titled_in) / asked_weight,
            "lexical": hit.lexical_score / top_lexical if top_lexical > 0 else 0.0,
            "kind_stated": float(bool(kind) and self.states_kind(passage.id, kind)),
            "elsewhere": sum(t.weight for t in specific_elsewhere) / asked_weight,
            "unknown": sum(t.weight for t in specific_unknown) / asked_weight,
        }
        if support.reason:
            return support
        support.logit = self.model.logit(support.features)
        support.reason = "answerability.not_supported"
        return support
