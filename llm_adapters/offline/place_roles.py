"""Several place objectives in one spec (origin and destination, pick-up and drop-off): which one a place
mention belongs to, from the words just before it.

Each place objective's markers are its own cue terms (``params.cues``) plus the language's role markers
(rules/patterns/<lang>.json ``place_roles``: "from", "leaving from" / "to", "going to" ...) of every role its
question, name or cues mention. A mention right after one objective's marker belongs to that objective; after
another's it is never evidence for this one; with no marker it stays open to every place objective.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.kernel.goal_models import CriterionKind, GoalSpec, Objective
from engine.text import fold
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.cues import objective_cues
from llm_adapters.offline.evidence import Evidence
from llm_adapters.offline.memo import memo

_POSSESSIVE = "'s"  # "friend's", "someone's": whose value it is, a filler between a role marker and the value
_WINDOW_WORDS = 3  # a marker counts when at most this many words separate it from the place name
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


@dataclass(frozen=True)
class PlaceMarkers:
    by_objective: dict[str, frozenset[str]]  # objective id -> folded marker phrases
    # objective id -> its own one-word cues of the company's words that are not bare prepositions ('llegamos',
    # 'recoger'): a verb governing the place tells its role when only a preposition stands next to the place
    verbs: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def all(self) -> frozenset[str]:
        return frozenset().union(*self.by_objective.values())

    def owner(self, analysis: Analysis, sentence_start: int, start: int) -> str | None:
        """The objective whose marker ends nearest before ``start`` (within the window), or None. Only filler
        words (function words, place fillers, articles) may stand between a marker and the mention: the "to" of
        "I need to check my savings" is no recipient's marker, the "to" of "fly to the city of Reno" is."""
        before = analysis.masked[sentence_start:start]
        words = _WORD.findall(before)
        tail = words[-(_WINDOW_WORDS + 3):]
        fillers = _fillers(analysis)
        reach = len(tail)  # markers may end at or after this index: every word after it is a filler
        while reach > 0 and len(tail) - reach < _WINDOW_WORDS and (tail[reach - 1] in fillers
                                                                  or tail[reach - 1].endswith(_POSSESSIVE)):
            reach -= 1  # 'to my friend's savings': a possessive stands between the marker and its value
        best: tuple[int, int, str, str] | None = None  # (distance in words, -marker length, objective, marker)
        for objective_id, markers in self.by_objective.items():
            for marker in markers:
                size = len(marker.split())
                for end in range(len(tail), max(size - 1, len(tail) - _WINDOW_WORDS, reach) - 1, -1):
                    if _is_marker(" ".join(tail[end - size:end]), marker):
                        candidate = (len(tail) - end, -size, objective_id, marker)
                        if best is None or candidate < best:
                            best = candidate
                        break
        if best is None or len(best[3]) <= _PREPOSITION:
            governing = self._governing_verb(analysis, start)
            if governing is not None:
                return governing
        if best is None:
            return self._apposition(before)
        return best[2]

    def _apposition(self, before: str) -> str | None:
        """'from the city centre, George Square': a place right after a comma restates the short phrase before
        it, and takes the role of the marker opening that phrase."""
        comma = _TRAILING_COMMA.search(before)
        if comma is None:
            return None
        phrase = _WORD.findall(re.split(r"[,;:.!?]", before[:comma.start()])[-1])
        if not phrase or len(phrase) > _APPOSITION_WORDS:
            return None
        found = [(len(m.split()), oid) for oid, markers in self.by_objective.items() for m in markers
                 if " ".join(phrase[:len(m.split())]) == m and len(m.split()) < len(phrase)]
        return max(found)[1] if found else None

    def _governing_verb(self, analysis: Analysis, start: int) -> str | None:
        """The objective whose own verb cue is the nearest one before ``start`` in its clause, in any of its
        forms ('llegan el 24 de junio al aeropuerto' with the cue 'llegamos'), or None."""
        if not self.verbs:
            return None
        clause_start = analysis.clause_at(start)[0]
        for word in reversed(_WORD.findall(analysis.masked[clause_start:start])):
            owners = {oid for oid, verbs in self.verbs.items() if any(_same_verb(word, v) for v in verbs)}
            if owners:
                return owners.pop() if len(owners) == 1 else None
        return None


def _is_marker(words: str, marker: str) -> bool:
    """The words are the marker, or its plural when it is a noun of three letters or more ('pick-ups in')."""
    return words == marker or (len(marker) > _PREPOSITION and words in (marker + "s", marker + "es"))


_TRAILING_COMMA = re.compile(r",\s*$")
_APPOSITION_WORDS = 6  # the phrase a place restates is short ('from the city centre')
_PREPOSITION = 2  # a marker this short ('a', 'al', 'de') is a preposition: a verb before it may govern the place
_VERB_STEM = 4  # letters two forms of one verb share at least ('llegamos' / 'llegan', 'recoger' / 'recogen')
_ENDING = 3  # letters of an inflected ending a cue may differ by


def _same_verb(word: str, cue: str) -> bool:
    """Two forms of one word: a shared beginning of at least four letters covering all but the cue's ending."""
    need = max(_VERB_STEM, len(cue) - _ENDING)
    return len(word) >= need and word[:need] == cue[:need]


def _fillers(analysis: Analysis) -> frozenset[str]:
    """Words that may stand between a role marker and the value it introduces ('to my', 'from the city of')."""
    rules = analysis.rules
    return memo(rules, "place_role_fillers", lambda: frozenset().union(
        *rules.function_words.values(), rules.place_fillers, rules.place_articles))


def _roles_of(objective: Objective, roles: dict[str, frozenset[str]]) -> set[str]:
    text = " " + " ".join(_WORD.findall(fold(" ".join([objective.name, *objective.questions.values()])))) + " "
    own = objective_cues(objective)
    found = set()
    for role, markers in roles.items():
        telling = {m for m in markers if len(m) > 2}  # "to", "a", "à" alone are too common to tell a role
        if any(f" {m} " in text for m in telling) or own & telling:
            found.add(role)
    return found


def place_markers(analysis: Analysis, spec: GoalSpec | None) -> PlaceMarkers | None:
    """Markers of every place objective (with one place objective, its own markers still introduce a place:
    "get to Wang Wah" for a destination), or None when the spec has no place objective."""
    if spec is None:
        return None
    places = [o for o in spec.ordered() if o.criterion.kind is CriterionKind.PLACE]
    if not places:
        return None

    def build() -> PlaceMarkers:
        roles = analysis.rules.place_roles
        by_objective: dict[str, frozenset[str]] = {}
        for objective in places:
            markers: set[str] = set(objective_cues(objective))
            for role in _roles_of(objective, roles):
                markers.update(roles[role])
            by_objective[objective.id] = frozenset(m for m in markers if m)
        # A marker shared by several objectives tells nothing apart.
        counts: dict[str, int] = {}
        for shared in by_objective.values():
            for m in shared:
                counts[m] = counts.get(m, 0) + 1
        kept = {oid: frozenset(m for m in ms if counts[m] == 1) for oid, ms in by_objective.items()}
        role_words = frozenset().union(*roles.values())
        verbs = {o.id: frozenset(c for c in objective_cues(o) if " " not in c and len(c) > _VERB_STEM
                                 and c not in role_words and c in kept[o.id]) for o in places}
        return PlaceMarkers(kept, {oid: v for oid, v in verbs.items() if v})

    return memo(analysis, f"place_markers:{id(spec)}", build)


def one_role_per_place(chosen: dict[str, Evidence], spec: GoalSpec, bits: dict[str, int], asked: str | None) -> None:
    """A place mention that no marker gives to one role fills one role only ("currently in a flat in Leeds" is
    never both the origin and the destination): the objective just asked, else the last open one in approved
    order, else the last. Changes ``chosen`` in place."""
    places = [o.id for o in spec.ordered() if o.criterion.kind is CriterionKind.PLACE]
    if len(places) < 2:
        return
    by_pos: dict[int, list[str]] = {}
    for objective_id in places:
        found = chosen.get(objective_id)
        if found is not None:
            by_pos.setdefault(found.pos, []).append(objective_id)
    for ids in by_pos.values():
        if len(ids) < 2:
            continue
        open_ids = [i for i in ids if bits.get(i) == 0]
        # unasked, a place said alone is most often where the visitor is going: the later role in approved
        # order (the destination after the origin, the drop-off after the pick-up)
        keep = asked if asked in ids else (open_ids or ids)[-1]
        for objective_id in ids:
            if objective_id != keep:
                del chosen[objective_id]
