"""The ε-constrained policy (paper eqs. 12-14) and the deterministic offline rubric for U_V.

U_B(ASK i) = w_i for an open objective, U_B(NONE) = 0. U_V(ASK i) = Σ coefficient × rubric level, or the
vetoed utility after a refusal of i or a stop request. Choose the feasible action (U_V ≥ ε) with the largest
U_B; equal weights go to the earlier approved order; NONE is chosen when no ASK is feasible.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.kernel.decision.invariants import frac

_ZERO = Fraction(0)  # immutable: one object serves every default and closed objective (no constructor per use)


@dataclass(frozen=True)
class Rubric:
    relevance: Fraction
    burden: Fraction
    repetition: Fraction
    privacy: Fraction
    rationale: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ObjectiveView:
    """What the policy needs to know about one objective, in approved order."""

    id: str
    weight: Fraction
    kind: str


@dataclass(frozen=True)
class RubricContext:
    """Conversation facts the offline rubric reads (all deterministic, none from model text)."""

    turn: int
    last_asked: str | None
    ask_counts: dict[str, int]
    uncertain_turns: dict[str, int]
    touched_this_turn: frozenset[str]  # objectives any candidate of this turn addressed (accepted or not)
    company_question: bool


@dataclass(frozen=True)
class ActionUtility:
    action: str  # "ASK(id)" or "NONE"
    objective: str | None
    u_b: Fraction
    u_v: Fraction
    feasible: bool
    vetoed: bool = False
    rubric: Rubric | None = None

class OfflineRubric:
    """Levels in {0, 0.5, 1} from rules/policy.json ``offline_rubric``; every level comes with a rationale."""

    def __init__(self, config: dict[str, Any]) -> None:
        # Levels converted to exact fractions once: the rubric runs for every objective of every turn.
        self._c: dict[str, Any] = {
            key: (value if key in ("uncertainty_cooldown_turns",) else
                  [frac(v) for v in value] if isinstance(value, list) else
                  {k: frac(v) for k, v in value.items()} if isinstance(value, dict) else frac(value))
            for key, value in config.items()
        }

    def score(self, objective: ObjectiveView, ctx: RubricContext) -> Rubric:
        c = self._c
        cooldown = int(c["uncertainty_cooldown_turns"])
        uncertain_turn = ctx.uncertain_turns.get(objective.id)
        recent_uncertain = uncertain_turn is not None and ctx.turn - uncertain_turn < cooldown
        ignored = ctx.last_asked == objective.id and objective.id not in ctx.touched_this_turn
        if recent_uncertain:
            relevance, r_why = c["relevance_uncertain_recent"], "visitor said they do not know this yet"
        elif ignored:
            relevance, r_why = c["relevance_same_question_unanswered"], "visitor turned to something else"
        else:
            relevance, r_why = c["relevance_default"], "approved objective still open"
        burdens: list[tuple[Fraction, str]] = [(c["burden_default"], "no extra burden")]
        if recent_uncertain:
            burdens.append((c["burden_uncertain_recent"], "asking again right after 'do not know yet'"))
        if ignored:
            burdens.append((c["burden_same_question_unanswered"], "same question just went unanswered"))
        if ctx.company_question:
            burdens.append((c["burden_visitor_asked_company_question"], "visitor is asking a question"))
        burden, b_why = max(burdens, key=lambda item: item[0])
        levels = c["repetition_by_times_asked"]
        times = ctx.ask_counts.get(objective.id, 0)
        repetition = levels[min(times, len(levels) - 1)]
        privacy = c["privacy_by_kind"].get(objective.kind, _ZERO)
        return Rubric(
            relevance=relevance,
            burden=burden,
            repetition=repetition,
            privacy=privacy,
            rationale={
                "R": r_why,
                "B": b_why,
                "D": f"asked {times} time(s) before",
                "P": f"criterion kind {objective.kind}",
            },
        )


@dataclass(frozen=True)
class PolicyConfig:
    coefficients: tuple[Fraction, Fraction, Fraction, Fraction]  # R, B, D, P (signed)
    epsilon: Fraction
    none_utility: Fraction
    vetoed_ask_utility: Fraction

    @staticmethod
    def from_policy(policy: dict[str, Any]) -> PolicyConfig:
        c = policy["coefficients"]
        return PolicyConfig(
            coefficients=(frac(c["relevance"]), frac(c["burden"]), frac(c["repetition"]), frac(c["privacy"])),
            epsilon=frac(policy["epsilon"]),
            none_utility=frac(policy["none_utility"]),
            vetoed_ask_utility=frac(policy["vetoed_ask_utility"]),
        )

    def visitor_utility(self, rubric: Rubric) -> Fraction:
        """U_V(ASK i) = Σ coefficient × rubric level (paper eq. 13)."""
        cr, cb, cd, cp = self.coefficients
        return cr * rubric.relevance + cb * rubric.burden + cd * rubric.repetition + cp * rubric.privacy


def evaluate_actions(
    objectives: list[ObjectiveView],
    bits_after: list[int],
    vetoed: list[bool],
    rubrics: list[Rubric],
    config: PolicyConfig,
) -> tuple[list[ActionUtility], int | None]:
    """Utilities of every action and the chosen objective index (None = NONE). Objectives in approved order."""
    actions: list[ActionUtility] = []
    chosen: int | None = None
    for index, objective in enumerate(objectives):
        # INVARIANT (I-9): a refused, stopped or rested objective gets vetoed_ask_utility < ε (proved at load)
        u_v = config.vetoed_ask_utility if vetoed[index] else config.visitor_utility(rubrics[index])
        open_ = bits_after[index] == 0  # INVARIANT (I-3): an ASK of a complete objective is infeasible
        feasible = open_ and not vetoed[index] and u_v >= config.epsilon
        u_b = objective.weight if open_ else _ZERO  # INVARIANT (I-7): U_B is the open objective's weight
        actions.append(ActionUtility(f"ASK({objective.id})", objective.id, u_b, u_v, feasible, vetoed[index],
                                     rubrics[index]))
        # INVARIANT (I-8): the feasible ASK of largest weight; strict '>' keeps the earlier approved order on ties
        if feasible and (chosen is None or objective.weight > objectives[chosen].weight):
            chosen = index
    actions.append(ActionUtility("NONE", None, _ZERO, config.none_utility,
                                 config.none_utility >= config.epsilon))
    return actions, chosen


@dataclass(frozen=True)
class StallRule:
    """rules/policy.json ``no_silent_stall`` (SPEC D-11): how many open objectives a PENDING statement names, and
    up to how many vocabulary options it lists for one of them."""

    max_named: int
    max_listed_options: int

    @staticmethod
    def from_policy(policy: dict[str, Any]) -> StallRule | None:
        rule = policy.get("no_silent_stall")  # absent from bundles published before 1.9.0: no PENDING move
        if rule is None:
            return None
        return StallRule(int(rule["max_named"]), int(rule["max_listed_options"]))


@dataclass(frozen=True)
class Move:
    """How a turn moves the conversation (SPEC D-11): ASK the chosen objective, state what is still PENDING (a
    statement naming open objectives as optional, never an ask), or NONE (stopped, or nothing open)."""

    kind: str  # "ASK" | "PENDING" | "NONE"
    objectives: tuple[str, ...] = ()


def conversation_move(objectives: list[ObjectiveView], bits_after: list[int], refused: Collection[str],
                      stopped: bool, chosen: str | None, rule: StallRule | None) -> Move:
    """INVARIANT (I-15): a turn that leaves an open, undeclined objective and a visitor who has not stopped asks
    (the ε-policy's choice) or names what is pending; a refused objective is never named (I-9)."""
    if chosen is not None:
        return Move("ASK", (chosen,))
    if stopped or rule is None:
        return Move("NONE")
    open_ = [(index, o) for index, o in enumerate(objectives) if bits_after[index] == 0 and o.id not in refused]
    # The order of eq. 14: larger weight first, the earlier approved objective on ties.
    open_.sort(key=lambda item: (-item[1].weight, item[0]))
    named = tuple(o.id for _, o in open_[: rule.max_named])
    return Move("PENDING", named) if named else Move("NONE")
