"""The deterministic offline proposer: typed extractors per criterion kind plus cue detection, all driven by
the goal spec's criteria and the rule files (vocabularies, per-language cue patterns). No model, no network.

It proposes; the decision layer re-checks every span and validates every value by criterion kind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import structlog

from engine.kernel.commands import Command, Complete, Correct, Refuse, Resume, Span, Stop, Uncertain
from engine.kernel.decision.provenance import ProvenanceRules, attribution
from engine.kernel.goal_models import CriterionKind, Objective, PublishedGoalSpec
from engine.kernel.ports import Proposal, ProposerInput
from engine.kernel.validators.contact import CHANNEL_SEPARATOR, contact_channels
from engine.text import fold
from llm_adapters.offline import gazetteer
from llm_adapters.offline.analysis import Analysis, analyze
from llm_adapters.offline.answer_scorer import AnswerJudge, ScorerSettings
from llm_adapters.offline.choices import AMBIGUOUS_NOTE, ambiguous_choices, extract_enumeration, extract_features
from llm_adapters.offline.contact import extract_contact
from llm_adapters.offline.corrections import UNRESOLVED_NOTE, Revisions, find_revisions
from llm_adapters.offline.cues import CueHit, Cues, detect_cues, objective_cues
from llm_adapters.offline.declined import drop_answer_declines_beside_other_values, extract_declined
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.free_text import extract_free_text
from llm_adapters.offline.goal_words import goal_words
from llm_adapters.offline.language import detect_languages
from llm_adapters.offline.memo import memo
from llm_adapters.offline.mentions import date_mentions
from llm_adapters.offline.money import extract_money, warm_money
from llm_adapters.offline.offline_rules import (
    DEFAULT_RULES_DIR,
    PROPOSER_FOLDERS,
    OfflineRules,
    VocabularyData,
    build_rules,
    read_rule_files,
)
from llm_adapters.offline.place_roles import one_role_per_place
from llm_adapters.offline.places import extract_place
from llm_adapters.offline.quantity import extract_quantity
from llm_adapters.offline.stay_length import date_pair, end_from_length, is_full_date, stated_length
from llm_adapters.offline.temporal import extract_datetime, warm_temporal
from llm_adapters.offline.terms import compiled_terms
from llm_adapters.offline.weekday_check import WEEKDAY_NOTE, weekday_conflict

if TYPE_CHECKING:
    from engine.rules.loader import RuleBundle

_GAZETTEER_KINDS = frozenset({CriterionKind.PLACE, CriterionKind.FEATURES, CriterionKind.ENUMERATION})
log = structlog.get_logger("grace.proposer.offline")

MAX_QUOTE = 2000  # engine.kernel.commands.Span.quote max_length


def _schema_max_length(model: type[Complete | Correct], field: str) -> int:
    """A string field's max_length in the command schema: the proposer never builds a command it would break."""
    for meta in model.model_fields[field].metadata:
        limit = getattr(meta, "max_length", None)
        if isinstance(limit, int):
            return limit
    raise RuntimeError(f"{model.__name__}.{field} has no max_length")  # a schema change this module must follow


MAX_VALUE = min(_schema_max_length(Complete, "value"), _schema_max_length(Correct, "value"))


class _BundleLike(Protocol):
    @property
    def files(self) -> Mapping[str, Mapping[str, Any]]: ...


class OfflineProposer:
    """engine.kernel.ports.Proposer without an LLM."""

    name = "offline"
    version = "1.0.0"

    def __init__(self, rules: OfflineRules, files: Mapping[str, Mapping[str, Any]] | None = None,
                 provenance: ProvenanceRules | None = None, judge: AnswerJudge | None = None) -> None:
        self._rules = rules
        # the learned answer scorer (rules/learned.json; off without that file): it may only veto a rule's candidate
        self._judge = judge if judge is not None else AnswerJudge(ScorerSettings.from_rules(None))
        self._provenance = provenance  # the decision layer's attribution markers (rules/provenance.json)
        self._files = files  # raw rule files: per-language subsets of the rules are built from them on demand
        self._scoped: dict[frozenset[str], OfflineRules] = {}
        self._spec_vocabularies: dict[str, dict[str, VocabularyData]] = {}
        self._terms: dict[str, frozenset[str]] = {}
        self._goal_word_sets: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()
        warm_temporal(rules)  # compile the temporal grammar and load dateparser once, not on the first turn

    @classmethod
    def from_rules_dir(cls, root: Path = DEFAULT_RULES_DIR) -> OfflineProposer:
        files = read_rule_files(root)
        return cls(build_rules(files), files)

    @classmethod
    def from_bundle(cls, bundle: _BundleLike, judge: AnswerJudge | None = None) -> OfflineProposer:
        """Use the vocabularies and patterns of a loaded (already schema-validated) rule bundle; ``judge``: the
        learned answer scorer, else the one ``rules/learned.json`` configures."""
        files = {k: v for k, v in bundle.files.items() if k.startswith(tuple(f"{f}/" for f in PROPOSER_FOLDERS))}
        provenance = (ProvenanceRules.from_bundle(cast("RuleBundle", bundle))
                      if "provenance" in bundle.files and hasattr(bundle, "content_hash") else None)
        judge = judge or AnswerJudge(ScorerSettings.from_rules(bundle.files.get("learned")))
        return cls(build_rules(files), files, provenance, judge)

    @property
    def rules(self) -> OfflineRules:
        return self._rules

    def rules_for(self, text: str, language: str) -> OfflineRules:
        """The rules of the languages this text is written in (spec/adr/0003 §5), built once per language set."""
        if self._files is None:
            return self._rules
        settings = self._rules.settings
        languages = detect_languages(text, self._rules.function_words, language,
                                     min_hits=settings.language_min_hits, min_share=settings.language_min_share)
        return self._scoped_rules(languages & (self._rules.languages | {language}))

    def _scoped_rules(self, languages: frozenset[str]) -> OfflineRules:
        if self._files is None:
            return self._rules
        with self._lock:
            scoped = self._scoped.get(languages)
            if scoped is None:
                scoped = build_rules(self._files, languages)
                self._scoped[languages] = scoped
        return scoped

    def warm_up(self, spec: PublishedGoalSpec) -> None:
        """Build now what the first turns in each of the spec's languages would otherwise build while a visitor
        waits: the per-language rules and their currency patterns, the spec's vocabularies, terms and term
        patterns, and the gazetteer (measured: 20-100 ms on each of a fresh worker's first turns). Nothing here
        decides anything."""
        self._company_terms(spec)
        for objective in spec.spec.objectives:
            vocabulary = self._vocabulary(objective, spec)
            if vocabulary is not None:
                compiled_terms(vocabulary)
        # places read the gazetteer; so do vocabulary terms inside a capitalised name ('gatos' in 'Los Gatos')
        if any(o.criterion.kind in _GAZETTEER_KINDS for o in spec.spec.objectives):
            gazetteer.warm()
        for language in spec.spec.languages:
            warm_money(self._scoped_rules(frozenset({language})))

    def propose(self, request: ProposerInput) -> Proposal:
        analysis = analyze(self.rules_for(request.message.text, request.language), request.message.text,
                           self._goal_words(request.spec))
        request.context.check_deadline("analysis")
        objectives = request.spec.spec.ordered()
        bits = {o.id: int(b) for o, b in zip(objectives, request.bits, strict=False)}
        cues = detect_cues(analysis, objectives, bits, request.last_asked)
        evidence, replacing = self._evidence(analysis, objectives, bits, cues, request)
        revisions = self._revisions(analysis, objectives, bits, cues, evidence, replacing, request)
        commands = _commands(request, analysis, objectives, bits, cues, evidence, revisions)
        log.debug("proposer.offline.proposed", turn=request.turn, commands=[c.type for c in commands])
        notes = [f"{UNRESOLVED_NOTE}:{oid}" for oid in revisions.unresolved]
        notes += [f"{AMBIGUOUS_NOTE}:{oid}:{','.join(options)}" for oid, options in ambiguous_choices(analysis).items()
                  if oid not in evidence and bits.get(oid) == 0]
        notes += self._conflicts(analysis)
        notes += date_mentions(analysis, request.spec.spec, request.reference_time)  # volunteered, no objective
        return Proposal(commands=commands, adapter=self.name, adapter_version=self.version, notes=notes)

    def _revisions(
        self, analysis: Analysis, objectives: list[Objective], bits: dict[str, int], cues: Cues,
        evidence: dict[str, Evidence], replacing: set[str], request: ProposerInput,
    ) -> Revisions:
        """Recorded values this message revises (llm_adapters/offline/corrections.py)."""
        settings = analysis.rules.settings
        short = len(analysis.words(0, len(analysis.masked))) <= settings.implicit_correction_max_words

        def extract(objective: Objective, lenient: bool) -> list[Evidence]:
            if not (short or cues.correcting):
                return []  # a bare "not 2, 3" is short; a long message revises only with a cue or a topic word
            ctx = ExtractionContext(
                analysis=analysis, objective=objective, lenient=lenient, correcting=cues.correcting,
                company_terms=self._company_terms(request.spec), spec=request.spec.spec,
                reference_time=request.reference_time,
            )
            return [e for e in self._extract(ctx, self._vocabulary(objective, request.spec))
                    if 0 < len(e.value) <= MAX_VALUE]

        return find_revisions(analysis, cues, objectives, bits, evidence, replacing, request.recorded,
                              request.last_asked, extract)

    def _company_vocabularies(self, spec: PublishedGoalSpec) -> dict[str, VocabularyData]:
        """The spec's own vocabularies (spec/adr/0003 §1), converted once per published version."""
        with self._lock:
            cached = self._spec_vocabularies.get(spec.content_hash)
            if cached is None:
                cached = {vid: VocabularyData.from_json(data) for vid, data in spec.spec.vocabularies.items()}
                self._spec_vocabularies[spec.content_hash] = cached
        return cached

    def _goal_words(self, spec: PublishedGoalSpec) -> frozenset[str]:
        """The spec's own content words (llm_adapters/offline/goal_words.py), once per published version."""
        with self._lock:
            cached = self._goal_word_sets.get(spec.content_hash)
        if cached is None:
            cached = goal_words(spec.spec, self._rules.all_function_words)
            with self._lock:
                self._goal_word_sets[spec.content_hash] = cached
        return cached

    def _company_terms(self, spec: PublishedGoalSpec) -> frozenset[str]:
        """Folded terms of every vocabulary the spec uses and of its objectives' cues, once per version."""
        with self._lock:
            cached = self._terms.get(spec.content_hash)
        if cached is not None:
            return cached
        terms: set[str] = set()
        for objective in spec.spec.objectives:
            vocabulary = self._vocabulary(objective, spec)
            if vocabulary is not None and vocabulary.kind != "place":
                terms.update(term for term, _ in vocabulary.terms)
            terms.update(objective_cues(objective))
        result = frozenset(t for t in terms if t)
        with self._lock:
            self._terms[spec.content_hash] = result
        return result

    def _vocabulary(self, objective: Objective, spec: PublishedGoalSpec) -> VocabularyData | None:
        vocab_id = objective.criterion.params.get("vocabulary")
        if vocab_id is None:
            return None
        vocabulary = self._company_vocabularies(spec).get(str(vocab_id)) or self._rules.vocabularies.get(str(vocab_id))
        if vocabulary is None:
            log.warning("proposer.offline.vocabulary_missing", objective=objective.id, vocabulary=vocab_id)
        return vocabulary

    def _evidence(
        self, analysis: Analysis, objectives: list[Objective], bits: dict[str, int], cues: Cues,
        request: ProposerInput,
    ) -> tuple[dict[str, Evidence], set[str]]:
        """The best candidate per objective, and the objectives whose earlier value the visitor replaces."""
        last_asked = request.last_asked
        unit_terms = tuple(
            v for o in objectives if o.criterion.kind is CriterionKind.FEATURES
            for v in [self._vocabulary(o, request.spec)] if v is not None
        )
        chosen: dict[str, Evidence] = {}
        replacing: set[str] = set()
        # Free text last: its answer is the clause that holds none of the other objectives' values.
        for objective in sorted(objectives, key=lambda o: o.criterion.kind is CriterionKind.FREE_TEXT):
            ctx = ExtractionContext(
                analysis=analysis, objective=objective,
                lenient=last_asked == objective.id and bits.get(objective.id) == 0,
                correcting=cues.correcting, unit_terms=unit_terms,
                company_terms=self._company_terms(request.spec), spec=request.spec.spec,
                reference_time=request.reference_time, taken=tuple(e.pos for e in chosen.values()),
                restated=tuple(e.pos for oid, e in chosen.items()
                               if bits.get(oid) and fold(e.value) == fold(request.recorded.get(oid, ""))),
                asked=last_asked if bits.get(last_asked or "") == 0 else None,
                recorded=tuple((oid, request.recorded.get(oid, "")) for oid, bit in bits.items() if bit),
            )
            request.context.check_deadline(f"proposing {objective.id}")
            # A value the command schema cannot carry (a 600-character digit or e-mail run) is no candidate.
            found = [e for e in self._extract(ctx, self._vocabulary(objective, request.spec))
                     if 0 < len(e.value) <= MAX_VALUE]
            if objective.criterion.kind is CriterionKind.CONTACT:
                found = self._own_channels(found, request, analysis)
            if any(e.old for e in found):
                replacing.add(objective.id)
            candidates = [e for e in found if not e.old]
            if not candidates and bits.get(objective.id) == 0:
                # Nothing was recorded, so nothing can be replaced: "queremos cambiar antes de fin de año"
                # uses a change verb about something else, and its date is the visitor's answer.
                candidates = list(found)
            if candidates:
                best = min(candidates, key=lambda e: (-e.rank, e.pos))
                dated = objective.criterion.kind is CriterionKind.DATETIME
                stated = weekday_conflict(analysis, best) if dated else None
                if stated is not None:  # "Saturday 16 May" on a Sunday: ask, never store either reading
                    self._conflicts(analysis).append(f"{WEEKDAY_NOTE}:{objective.id}:{best.value[:10]}:{stated}")
                    continue
                if bits.get(objective.id) == 0 and not self._judge.keep(request, analysis, objective, best,
                                                                        len(chosen)):
                    continue  # the learned scorer finds this no answer to the objective (rules/learned.json)
                chosen[objective.id] = best
        one_role_per_place(chosen, request.spec.spec, bits, last_asked)
        drop_answer_declines_beside_other_values(chosen)
        self._end_from_length(analysis, bits, request, chosen)
        return chosen, replacing

    @staticmethod
    def _end_from_length(analysis: Analysis, bits: dict[str, int], request: ProposerInput,
                         chosen: dict[str, Evidence]) -> None:
        """'we leave on the 18th, ten days': the stated length gives the second date of a date pair
        (llm_adapters/offline/stay_length.py)."""
        pair = date_pair(request.spec.spec)
        if pair is None:
            return
        start, end = pair
        if bits.get(end.id) != 0 or (end.id in chosen and is_full_date(chosen[end.id].value)):
            return  # a part of day read for the end ('retour le soir même') yields to the length it states
        begin = chosen[start.id].value if start.id in chosen else request.recorded.get(start.id)
        length = stated_length(analysis, relative=request.last_asked == end.id) if begin else None
        found = end_from_length(analysis, begin, length) if begin else None
        if found is not None:
            chosen[end.id] = found

    @staticmethod
    def _conflicts(analysis: Analysis) -> list[str]:
        return memo(analysis, "weekday_conflicts", list)

    def _own_channels(self, found: list[Evidence], request: ProposerInput, analysis: Analysis) -> list[Evidence]:
        """A several-channel contact value keeps only the channels the decision layer would attribute to the
        visitor (D-10 (c), the same markers): one channel of someone else's must not cost the visitor theirs."""
        if self._provenance is None:
            return found
        kept: list[Evidence] = []
        for evidence in found:
            channels = contact_channels(evidence.value)
            if len(channels) < 2:
                kept.append(evidence)
                continue
            span = _span(request, analysis, evidence.sentences, evidence.pos)
            own = [c for c in channels
                   if not any(attribution(request.message.text, c, (span.start, span.end), self._provenance))]
            if len(own) == len(channels):
                kept.append(evidence)
            elif own:  # the visitor's own channels, even when one is left
                kept.append(replace(evidence, value=f"{CHANNEL_SEPARATOR} ".join(own)))
        return kept

    def _extract(self, ctx: ExtractionContext, vocabulary: VocabularyData | None) -> list[Evidence]:
        kind = ctx.objective.criterion.kind
        extractors: dict[CriterionKind, Callable[[], list[Evidence]]] = {
            CriterionKind.MONEY: lambda: extract_money(ctx),
            CriterionKind.CONTACT: lambda: extract_contact(ctx),
            CriterionKind.PLACE: lambda: extract_place(ctx, vocabulary),
            # a claim wins; else the visitor's "no" to a yes/no feature (spec/adr/0009)
            CriterionKind.FEATURES: lambda: (extract_features(ctx, vocabulary) or extract_declined(ctx, vocabulary))
            if vocabulary else [],
            CriterionKind.ENUMERATION: lambda: extract_enumeration(ctx, vocabulary) if vocabulary else [],
            CriterionKind.QUANTITY: lambda: extract_quantity(ctx),
            CriterionKind.FREE_TEXT: lambda: extract_free_text(ctx),
            CriterionKind.DATETIME: lambda: extract_datetime(ctx),
        }
        extractor = extractors.get(kind)
        return extractor() if extractor is not None else []  # other kinds: left to LLM proposers


def _span(request: ProposerInput, analysis: Analysis, ranges: tuple[tuple[int, int], ...], pos: int) -> Span:
    start = min(s for s, _ in ranges)
    end = max(e for _, e in ranges)
    src_start, src_end = analysis.source_span(start, end)
    if src_end - src_start > MAX_QUOTE:  # keep the witness within the command schema's quote limit
        centre, _ = analysis.source_span(pos, pos + 1)
        src_start = max(src_start, centre - MAX_QUOTE // 2)
        src_end = min(src_end, src_start + MAX_QUOTE)
    text = request.message.text
    return Span(turn=request.turn, start=src_start, end=src_end, quote=text[src_start:src_end])


def _hit_span(request: ProposerInput, analysis: Analysis, hit: CueHit) -> Span:
    return _span(request, analysis, ((hit.sentence.start, hit.sentence.end),), hit.sentence.start)


def _commands(
    request: ProposerInput, analysis: Analysis, objectives: list[Objective], bits: dict[str, int],
    cues: Cues, evidence: dict[str, Evidence], revisions: Revisions,
) -> list[Command]:
    commands: list[Command] = []
    known = {o.id for o in objectives}
    for hit in cues.of("resume"):
        for refused in request.refused:
            if refused in evidence or refused in hit.objectives:
                commands.append(Resume(objective=refused, span=_hit_span(request, analysis, hit)))
        if request.stopped:
            commands.append(Resume(objective=None, span=_hit_span(request, analysis, hit)))
    for objective in objectives:
        found = evidence.get(objective.id) if bits.get(objective.id) == 0 else revisions.values.get(objective.id)
        if found is None:
            continue
        span = _span(request, analysis, found.sentences, found.pos)
        if bits.get(objective.id) == 0:
            commands.append(Complete(objective=objective.id, span=span, value=found.value))
        else:
            commands.append(Correct(objective=objective.id, span=span, value=found.value))
    for kind, factory in (("refusal", Refuse), ("uncertainty", Uncertain)):
        for hit in cues.of(kind):
            for objective_id in hit.objectives:
                if objective_id in known and bits.get(objective_id) == 0 and objective_id not in evidence:
                    commands.append(factory(objective=objective_id, span=_hit_span(request, analysis, hit)))
    stops = cues.of("stop")
    if stops and not request.stopped:
        commands.append(Stop(span=_hit_span(request, analysis, stops[0])))
    return _dedupe(commands)


def _dedupe(commands: list[Command]) -> list[Command]:
    seen: set[tuple[str, str | None]] = set()
    unique: list[Command] = []
    for command in commands:
        key = (command.type, getattr(command, "objective", None))
        if key not in seen:
            seen.add(key)
            unique.append(command)
    return unique
