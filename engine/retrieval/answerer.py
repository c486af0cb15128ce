"""The grounded answerer: ``engine.kernel.ports.Answerer`` over a company corpus (paper eqs. 6-8).

One call reads only the current visitor message (turn-local). Its output is a ``GroundedAnswer``: company
evidence with citations, never visitor evidence. Steps: question detection → TopK retrieval (eq. 7) →
answerability by support (answerability.py) → synthesis (eq. 6) → per-claim support check (eq. 8) → a graded
reply (tiers.py): ``answer``; else ``related`` when the best retrieved section stands out for the question (an
honest frame, its one or two sentences most likely to hold the answer, verbatim, and links to at most two other
sections; never synthesised); else ``none``: the unavailable-information message — or the near-miss message naming
what the documents do cover — and the documents' own contact sentence when one states it.

Long messages: what is embedded and searched is the message when it is short, else its question sentences, cut to
``answering.query_max_chars`` at a word boundary (a 4,000-character message costs what a short one does).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import structlog

from engine.kernel.ports import Citation, GroundedAnswer
from engine.kernel.turn_context import TurnContext
from engine.retrieval.analysis import AnalyzerSet, QueryWord, is_number, split_sentences
from engine.retrieval.answerability import (
    AnswerabilityJudge,
    AskedTerm,
    Support,
    function_words,
    question_language,
)
from engine.retrieval.calibration import calibrate
from engine.retrieval.decision import clip
from engine.retrieval.embedder import Embedder
from engine.retrieval.filters import FieldFilter
from engine.retrieval.grounding import Claim, ClaimCheck, check_claim
from engine.retrieval.index import Retriever
from engine.retrieval.lexicon import Lexicon
from engine.retrieval.models import Passage, ScoredPassage
from engine.retrieval.parts import question_parts
from engine.retrieval.questions import compiled as compiled_cues
from engine.retrieval.questions import question_sentences
from engine.retrieval.retrieval_rules import RetrievalRules, TierSignals
from engine.retrieval.sentences import SentenceIndex, rank_sentences, shown_sentences
from engine.retrieval.synthesis import Synthesizer, render
from engine.retrieval.tiers import Tier, decide_tier
from engine.retrieval.twins import translation_twins
from engine.text import normalize

log = structlog.get_logger("grace.retrieval")

# Judgements meaning "this section is about the question's topic but does not state the asked thing".
_NEAR_MISS_REASONS = frozenset(
    {"answerability.asked_elsewhere", "answerability.not_supported", "answerability.other_amount"}
)


def _content(asked: list[AskedTerm]) -> list[AskedTerm]:
    """The asked words that name something (numbers set aside; the verb flag is not used: "your *office*" may be
    taken for an action)."""
    return [t for t in asked if not is_number(t.word.surface)]


@dataclass
class AnswerTrace:
    """Why an answer looks the way it does (for audit records and the benchmark)."""

    is_question: bool = False
    hits: list[ScoredPassage] = field(default_factory=list)
    language: str = ""  # the language the question is written in (may differ from the turn's)
    support: list[Support] = field(default_factory=list)  # one judgement per retrieved passage
    evidence: list[str] = field(default_factory=list)  # passage ids that support an answer
    near_miss: str = ""  # passage id of the related section named in the near-miss message
    checks: list[ClaimCheck] = field(default_factory=list)
    tier: Tier = "none"
    related: str = ""  # passage id whose sentences a related reply shows
    query_chars: int = 0  # characters of the text that was embedded and searched
    asked: list[AskedTerm] = field(default_factory=list)  # the question's content terms
    asked_kind: str = ""  # what kind of thing the question asks ("price", "clock", "date", "")
    parts: list[Tier] = field(default_factory=list)  # a question in several parts: each part's tier
    unanswered: list[int] = field(default_factory=list)  # ... the parts (0-based) named as not covered
    # what the related-or-none decision read of the section a related reply would show (for audit and fitting)
    tier_signals: TierSignals | None = None
    ms: float = 0.0


class GroundedAnswerer:
    def __init__(
        self,
        retriever: Retriever,
        rules: RetrievalRules,
        analyzers: AnalyzerSet,
        synthesizer: Synthesizer,
        filters: Sequence[FieldFilter] = (),
        lexicon: Lexicon | None = None,
        sentences: SentenceIndex | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.retriever = retriever
        self.rules = rules
        self.analyzers = analyzers
        self.synthesizer = synthesizer
        self.filters = tuple(filters)
        self._abbreviations = {
            k.casefold(): v for lang in rules.languages.values() for k, v in lang.abbreviations.items()
        }
        words = "|".join(re.escape(k) for k in sorted(self._abbreviations, key=len, reverse=True)) or r"(?!)"
        self._abbreviation = re.compile(rf"(?<![\w'’])(?:{words})(?![\w'’])", re.IGNORECASE)
        self._function_words = function_words(rules)
        for language in rules.languages.values():
            # Compiled now, not in the first turn without a question mark (~90 patterns, 10 ms).
            compiled_cues(language.question)
        self.judge = AnswerabilityJudge(
            rules,
            analyzers,
            retriever.term_stats,
            retriever.passage_terms,
            retriever.vocabulary,
            calibrate(retriever.vectors),
            retriever.corpus.passages,
            lexicon,
        )
        min_z = rules.grounding.twin_min_z
        self.twins = translation_twins(retriever.corpus.passages, retriever.vectors, min_z) if min_z > 0 else {}
        self.sentences = sentences
        self.embedder = embedder
        self._contact = re.compile(rules.answering.contact_pattern)
        self._contacts = self._contact_sentences()

    def _contact_sentences(self) -> dict[str, tuple[Passage, str]]:
        """Per passage language, the first sentence of the documents that gives a contact (e-mail, phone)."""
        found: dict[str, tuple[Passage, str]] = {}
        for passage in self.retriever.corpus.passages:
            if passage.language in found:
                continue
            for sentence in split_sentences(passage.text):
                if self._contact.search(sentence):
                    found[passage.language] = (passage, sentence)
                    break
        return found

    def _expand_abbreviations(self, text: str) -> str:
        """Chat abbreviations of every rule language spelled out ("dnd estais" → "dónde estais") for retrieval."""
        return self._abbreviation.sub(lambda m: self._abbreviations[m.group(0).casefold()], text)

    def company_texts(self) -> list[str]:
        """Every passage this answerer can show: company text whose contact values are never the visitor's."""
        return [f"{p.title}\n{p.text}" for p in self.retriever.corpus.passages]

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        return self.answer_with_trace(message, language, context)[0]

    def _unavailable(self, language: str, trace: AnswerTrace) -> GroundedAnswer:
        """The ``none`` reply: the unavailable-information message, or the near-miss message when the section that
        stands out for the question is about it but lacks the asked thing ("the clutch" in a section on oil-change
        prices); then the documents' own contact sentence, cited, when one states it."""
        rules = self.rules.language(language)
        text = self.rules.answering.frames_for(language).none
        near = self._near_miss(trace)
        if near is not None:
            passage, asked = near
            text = rules.near_miss_message.format(covered=passage.title or passage.label, asked=asked)
            trace.near_miss = passage.id
        trace.tier = "none"
        contact = self._contacts.get(language) or next(iter(self._contacts.values()), None)
        if contact is None:
            return GroundedAnswer(text=text, citations=[], supported=False, is_question=True, kind="none")
        passage, sentence = contact
        frame = self.rules.answering.frames_for(language).contact.format(label=passage.label or passage.title)
        citation = Citation(source=passage.source, passage_id=passage.id, quote=sentence, label=passage.label)
        return GroundedAnswer(
            text=f"{text}\n{frame} {sentence}", citations=[citation], supported=False, is_question=True, kind="none"
        )

    def _sentence_signals(self, passage_id: str, search: str) -> dict[str, float]:
        """How well the section's best sentence matches the question (``sentence_z``: its cosine as a z-score
        against the corpus's calibration of unrelated sections) and how far it beats every other section's best
        sentence (``sentence_gap``, in the same units): a paraphrased question usually has one sentence that says
        it, a never-mentioned one only a loosely similar section. Empty without a sentence index."""
        if self.sentences is None or self.embedder is None:
            return {}
        best = self.sentences.best_cosines(self.embedder.embed_queries([search])[0])
        shown = best.get(passage_id)
        if shown is None:
            return {}
        other = max((c for pid, c in best.items() if pid != passage_id), default=shown)
        sd = self.judge.calibration.body_sd
        return {
            "sentence_z": clip((shown - self.judge.calibration.body_mean) / sd),
            "sentence_gap": clip((shown - other) / sd),
        }

    def _best_related(self, trace: AnswerTrace, search: str) -> tuple[TierSignals, int | None]:
        """What the tier decision reads, and the index of the hit a related reply would show: the model's most
        probable section, else (every section vetoed) the one that stands out most."""
        if not trace.hits:
            return TierSignals(answerable=False, probability=0.0, standing=0.0, veto="", retrieved=False), None
        vetoes = self.rules.answering.related_vetoes
        question_veto = next((s.reason for s in trace.support if s.reason in vetoes), "")
        scored = [i for i, s in enumerate(trace.support) if s.logit is not None]
        pool = scored or list(range(len(trace.support)))
        best = max(pool, key=lambda i: (trace.support[i].probability, trace.support[i].standing, -i))
        support = trace.support[best]
        signals = TierSignals(
            answerable=False,
            probability=support.probability,
            standing=support.standing,
            veto=question_veto or ("" if support.logit is not None else support.reason),
            unknown=support.features.get("unknown", 0.0),
            features={**support.features, **self._sentence_signals(trace.hits[best].passage.id, search)},
        )
        trace.tier_signals = signals
        return signals, best

    def _not_answered(self, language: str, trace: AnswerTrace, search: str, words: list[QueryWord]) -> GroundedAnswer:
        signals, best = self._best_related(trace, search)
        if best is None or decide_tier(signals, self.rules.answering) != "related":
            return self._unavailable(language, trace)
        return self._related(language, trace, best, search, words)

    def _related(
        self, language: str, trace: AnswerTrace, best: int, search: str, words: list[QueryWord]
    ) -> GroundedAnswer:
        """The section's sentences most likely to hold the answer, verbatim, framed honestly; never synthesised."""
        settings = self.rules.answering
        passage = trace.hits[best].passage
        picked = self._pick_sentences(passage, search, words, trace.asked_kind)
        by_id = {passage.id: passage}
        trace.checks = [
            check_claim(Claim(text=s, passage_id=passage.id), by_id, self.analyzers, self.rules.grounding)
            for s in picked
        ]
        kept = [c.claim.text for c in trace.checks if c.supported]
        if not kept:  # cannot happen for verbatim sentences; fail closed all the same
            return self._unavailable(language, trace)
        frames = settings.frames_for(language)
        label = passage.label or passage.title or passage.source
        others = [
            h.passage
            for i, (h, s) in enumerate(zip(trace.hits, trace.support, strict=True))
            if i != best and s.reason not in settings.related_vetoes and h.passage.label != passage.label
            and decide_tier(
                TierSignals(answerable=False, probability=s.probability, standing=s.standing, veto=""), settings
            ) == "related"
        ]
        links = [
            Citation(source=p.source, passage_id=p.id, quote="", label=p.label or p.title)
            for p in list({p.label or p.id: p for p in others}.values())[: settings.related_max_links]
        ]
        frame = frames.related.format(label=label)
        text = f"{frame}\n{' '.join(kept)}"
        if links:
            text += f"\n{frames.see_also} " + "; ".join(c.shown() for c in links)
        citations = [Citation(source=passage.source, passage_id=passage.id, quote=s, label=passage.label) for s in kept]
        trace.tier, trace.related = "related", passage.id
        return GroundedAnswer(
            text=text, citations=citations, supported=False, is_question=True, kind="related", frame=frame, links=links
        )

    def _pick_sentences(self, passage: Passage, search: str, words: list[QueryWord], kind: str = "") -> list[str]:
        settings = self.rules.answering
        index = self.sentences
        if index is None or self.embedder is None or passage.id not in index.sentences:
            found = split_sentences(passage.text)
            return found[: settings.related_max_sentences]
        query_vector = self.embedder.embed_queries([search])[0]
        ranked = rank_sentences(
            index.sentences[passage.id],
            index.vectors[passage.id],
            query_vector,
            words,
            index.terms[passage.id],
            self.retriever.term_stats,
            settings.sentence_weights,
            [self.judge.sentence_states_kind(s, kind) for s in index.sentences[passage.id]] if kind else (),
        )
        shown = shown_sentences(ranked, settings.related_max_sentences, settings.second_sentence_share)
        return [r.text for r in shown]

    def bounded_query(self, text: str, sentences: list[str]) -> str:
        """What is embedded and searched: the message when it is short, else its question sentences (the last
        ones first kept whole), cut at a word boundary to ``answering.query_max_chars``."""
        limit = self.rules.answering.query_max_chars
        if len(text) <= limit:
            return text
        asked = " ".join(sentences) if sentences else text
        if len(asked) <= limit:
            return asked
        cut = asked[:limit]
        space = cut.rfind(" ")
        return cut[:space] if space > limit // 2 else cut

    def _near_miss(self, trace: AnswerTrace) -> tuple[Passage, str] | None:
        if not trace.support:
            return None
        settings = self.rules.grounding
        best = max(zip(trace.support, trace.hits, strict=True), key=lambda pair: pair[0].standing)
        support, hit = best
        missing = {
            "answerability.asked_elsewhere": support.elsewhere,
            "answerability.other_amount": support.amounts,
        }.get(support.reason, support.unknown or support.elsewhere)
        if (
            support.reason not in _NEAR_MISS_REASONS
            or support.coverage < settings.near_miss_min_coverage
            or support.standing < settings.near_miss_min_standing
            or not missing
        ):
            return None
        return hit.passage, ", ".join(f"“{word}”" for word in dict.fromkeys(missing))

    def _evidence(self, asked: str, terms: list[AskedTerm], trace: AnswerTrace) -> list[ScoredPassage]:
        standing = [max(h.dense_standing, h.title_standing) for h in trace.hits]
        kind = self.judge.asked_kind(asked)
        trace.asked_kind = kind
        amounts = self.judge.asked_amounts(asked, trace.language)
        # A section that cannot state what is asked (no clock time for "what time …") neither leads nor rivals.
        able = [self.judge.states_kind(h.passage.id, kind) for h in trace.hits]
        top_lexical = max((h.lexical_score for h in trace.hits), default=0.0)
        trace.support = [
            self.judge.judge(
                hit,
                terms,
                trace.language,
                max((s for j, s in enumerate(standing) if j != i and able[j]), default=0.0),
                kind,
                amounts,
                leads=not any(able[:i]),
                top_lexical=top_lexical,
            )
            for i, hit in enumerate(trace.hits)
        ]
        self.judge.decide(trace.support, self.twins)
        passing = [(support, hit) for support, hit in zip(trace.support, trace.hits, strict=True) if support.answerable]
        same_language = [pair for pair in passing if not pair[0].cross_lingual]
        if same_language or not self.rules.grounding.cross_language_fallback:
            passing = same_language
        # Among supporting passages the model's most probable answer wins.
        passing.sort(key=lambda pair: (-pair[0].probability, pair[1].rank))
        return [hit for _, hit in passing][: self.rules.grounding.max_passages]

    def answer_with_trace(self, message: str, language: str,
                          context: TurnContext | None = None) -> tuple[GroundedAnswer, AnswerTrace]:
        """The reply and how it was decided; ``context``: the turn's deadline and ledger, for a synthesizer that
        calls a model."""
        started = time.perf_counter()
        self.rules.language(language)  # unknown language: fail closed before doing anything
        text = normalize(message)
        sentences = question_sentences(text, self.rules.languages)  # is_question(text) is bool(sentences)
        if not sentences:
            result = GroundedAnswer(text="", supported=False, is_question=False)
            return self._done(result, AnswerTrace(is_question=False), started, len(text))
        result, trace = self._answer_question(text, sentences, language, context)
        parts = self._parts(text)
        if parts:
            result, trace = self._by_parts(parts, result, trace, language, context)
        return self._done(result, trace, started, len(text))

    def _parts(self, text: str) -> list[str]:
        """The message's separate questions (parts.py); a part asking no content word of its own ("how much",
        "¿se paga aparte?") is a follow-up of the part before it and stays with it."""
        found = question_parts(text, self.rules.languages, self.rules.answering.multi_part)
        kept: list[str] = []
        pending = ""
        for part in found:
            own = bool(_content(self.judge.asked_terms(part)))
            if not own and kept:
                kept[-1] = f"{kept[-1]} {part}"
            elif not own:
                pending = f"{pending} {part}".strip()
            else:
                kept.append(f"{pending} {part}".strip() if pending else part)
                pending = ""
        return kept if len(kept) >= 2 else []

    def _by_parts(
        self, parts: list[str], whole: GroundedAnswer, whole_trace: AnswerTrace, language: str,
        context: TurnContext | None = None,
    ) -> tuple[GroundedAnswer, AnswerTrace]:
        """A question in several parts: each part answered on its own; the parts the documents cover shown (the
        reply to the whole message when it shows the one section they cite), and a sentence naming the parts
        they do not cover: a part no section answers or relates to, none of whose content words the shown sections
        state (a part whose words a shown section states may be answered by it: no claim either way).
        Nothing covered: the reply to the whole message, as for one question."""
        replies = [
            self._answer_question(part, question_sentences(part, self.rules.languages) or [part], language, context)
            for part in parts
        ]
        covered = [i for i, (r, _) in enumerate(replies) if r.kind != "none" and r.citations]
        if not covered:
            return whole, whole_trace
        firsts = list(dict.fromkeys(replies[i][0].citations[0].passage_id for i in covered))
        whole_ids = [c.passage_id for c in whole.citations] if whole.kind != "none" else []
        rank = {"none": 0, "related": 1, "answer": 2}
        best = max(rank[replies[i][0].kind] for i in covered)
        # the whole message's reply, when it shows every section the parts cite at least as surely
        keep_whole = bool(whole_ids) and set(firsts) <= set(whole_ids) and rank[whole.kind] >= best
        body = whole if keep_whole else self._merged([replies[i][0] for i in covered])
        shown = {c.passage_id for c in body.citations}
        uncovered = [
            i for i, (r, t) in enumerate(replies) if r.kind == "none" and self._outside(t, shown)
        ]
        trace = replies[covered[0]][1] if body is not whole else whole_trace
        trace.parts = [t.tier for _, t in replies]
        trace.unanswered = uncovered
        trace.tier = body.kind
        if not uncovered:
            return body, trace
        note = self.rules.answering.frames_for(language).unanswered(uncovered)
        if not note:
            return body, trace
        return body.model_copy(update={"text": f"{body.text}\n{note}", "unanswered": note}), trace

    @staticmethod
    def _outside(part: AnswerTrace, shown: set[str]) -> bool:
        """The part's topic is not the shown sections': none of them is what its own search found first, and none
        states (or translates) any of its content words ("are helmets extra?" beside a section saying helmets are
        included, or "do you do kids' parties?" beside the birthday section, is not called uncovered)."""
        if part.hits and part.hits[0].passage.id in shown:
            return False
        content = _content(part.asked)
        return bool(content) and not any((t.stated_in | t.translated_in) & shown for t in content)

    def _merged(self, replies: list[GroundedAnswer]) -> GroundedAnswer:
        """Several parts' replies as one: an answer when any part is answered (its citations first), else related
        sections, each with its own frame in the text; links not already cited, at most ``related_max_links``."""
        if len(replies) == 1:
            return replies[0]
        answered = any(r.kind == "answer" for r in replies)
        ordered = sorted(replies, key=lambda r: r.kind != "answer")
        citations = [c for r in ordered for c in r.citations]
        cited = {c.passage_id for c in citations}
        links = list({c.passage_id: c for r in replies for c in r.links if c.passage_id not in cited}.values())
        related = next((r for r in replies if r.kind == "related"), None)
        return GroundedAnswer(
            text="\n\n".join(r.text for r in replies),
            citations=citations,
            supported=answered,
            is_question=True,
            kind="answer" if answered else "related",
            frame="" if answered or related is None else related.frame,
            links=[] if answered else links[: self.rules.answering.related_max_links],
        )

    def _answer_question(self, text: str, sentences: list[str], language: str,
                         context: TurnContext | None = None) -> tuple[GroundedAnswer, AnswerTrace]:
        """One question (the whole message, or one part of it): retrieval, the answer decision, the graded reply."""
        trace = AnswerTrace(is_question=True)
        query = self._expand_abbreviations(text)
        if query != text:  # the same text has the same question sentences
            sentences = question_sentences(query, self.rules.languages)
        query = self.bounded_query(query, sentences)
        trace.query_chars = len(query)
        asked = self.bounded_query(" ".join(sentences), []) or query
        trace.language = question_language(asked, self.rules, language, self._function_words)
        terms = self.judge.asked_terms(asked, trace.language)
        trace.asked = terms
        # Words matched across languages also search the keyword index (the same-language sections would
        # otherwise win retrieval in a bilingual corpus).
        expansion = list(
            dict.fromkeys(
                [*(w for t in terms for w in t.translations), *self.judge.other_language_forms(terms, trace.language)]
            )
        )
        # An acronym the documents spell out is searched as they write it (both the keyword and the dense side).
        spelled = " ".join(t.spelled_out for t in terms if t.spelled_out)
        search = f"{query} ({spelled})" if spelled else query
        trace.hits = self.retriever.search(search, self.rules.retrieval.top_k, self.filters, expansion)
        evidence = self._evidence(asked, terms, trace)
        trace.evidence = [h.passage.id for h in evidence]
        words = self.analyzers.query_words(asked)
        if not evidence:
            return self._not_answered(language, trace, search, words), trace
        lead = next(i for i, h in enumerate(trace.hits) if h.passage.id == evidence[0].passage.id)
        confidence = TierSignals(answerable=True, probability=trace.support[lead].probability,
                                 standing=trace.support[lead].standing, veto="")
        if decide_tier(confidence, self.rules.answering) == "related" or self._amount_unstated(asked, trace, lead):
            # The model leans to this section but is not confident, or the section never states the number the
            # question asks about: its sentences, framed, not an answer.
            return self._related(language, trace, lead, search, words), trace
        claims = self.synthesizer.synthesize(text, evidence, language, context)
        by_id = {h.passage.id: h.passage for h in evidence}
        trace.checks = [check_claim(c, by_id, self.analyzers, self.rules.grounding) for c in claims]
        kept = [c.claim for c in trace.checks if c.supported]
        if not kept:
            return self._not_answered(language, trace, search, words), trace
        citations = [
            Citation(
                source=by_id[c.passage_id].source,
                passage_id=c.passage_id,
                quote=c.text,
                label=by_id[c.passage_id].label,
            )
            for c in kept
        ]
        result = GroundedAnswer(text=render(kept), citations=citations, supported=True, is_question=True, kind="answer")
        trace.tier = "answer"
        return result, trace

    def _amount_unstated(self, asked: str, trace: AnswerTrace, lead: int) -> bool:
        """``answering.answer_needs_asked_amounts``: the question counts something ("for 6 people", "a 300 litre
        cylinder") and the leading section states that number for nothing, not even within a bound."""
        if not self.rules.answering.answer_needs_asked_amounts:
            return False
        amounts = self.judge.asked_amounts(asked, trace.language)
        return bool(amounts) and bool(self.judge.unstated_amounts(trace.hits[lead].passage.id, amounts))

    def _done(
        self, result: GroundedAnswer, trace: AnswerTrace, started: float, chars: int
    ) -> tuple[GroundedAnswer, AnswerTrace]:
        trace.ms = (time.perf_counter() - started) * 1000
        # The visitor's words are not logged (they may hold personal data): only sizes and decisions.
        log.info(
            "retrieval.answer.done",
            chars=chars,
            is_question=result.is_question,
            supported=result.supported,
            kind=result.kind,
            related=trace.related or None,
            query_chars=trace.query_chars,
            evidence=trace.evidence,
            reasons=[s.reason for s in trace.support],
            near_miss=trace.near_miss or None,
            parts=trace.parts or None,
            unanswered=trace.unanswered or None,
            dropped_claims=sum(1 for c in trace.checks if not c.supported),
            ms=round(trace.ms, 2),
        )
        return result, trace
