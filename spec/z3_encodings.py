"""Z3 encodings of the invariants of SPEC.md, shared by the runtime check and the bundle proofs.

Runtime (per transition): the concrete transition is bound to fresh constants and the solver is asked for a
counter-example to the conjunction of I-3..I-8; ``unsat`` means the transition is legal, anything else rejects.
Bundle proofs (per rule bundle, for all states): each property is proved by showing its negation unsat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import z3

LEVELS = (Fraction(0), Fraction(1, 2), Fraction(1))


def q(value: Fraction) -> z3.RatNumRef:
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


@dataclass(frozen=True)
class TransitionFacts:
    """A concrete transition as the invariants see it. Utilities are exact rationals."""

    before: Sequence[int]
    z: Sequence[int]
    after: Sequence[int]
    weights: Sequence[Fraction]
    visitor_witness: Sequence[bool]  # per objective: the accepted completion's witness is visitor text
    vetoed: Sequence[bool]  # per objective: refused or stopped
    ask_utility: Sequence[Fraction]  # U_V of ASK(i)
    none_utility: Fraction
    epsilon: Fraction
    chosen: int | None  # objective index of the chosen ASK, or None for NONE
    # per objective: the accepted completion's value has visitor provenance (D-10); empty means all true
    visitor_contact: Sequence[bool] = ()

    def own_contact(self, i: int) -> bool:
        return bool(self.visitor_contact[i]) if self.visitor_contact else True


@dataclass(frozen=True)
class TransitionEncoding:
    """Symbolic invariants for n objectives; a concrete transition is checked by binding the variables."""

    n: int
    negated_invariants: z3.BoolRef
    s: list[z3.ArithRef]
    z: list[z3.ArithRef]
    s1: list[z3.ArithRef]
    w: list[z3.ArithRef]
    uv: list[z3.ArithRef]
    witness: list[z3.BoolRef]
    vetoed: list[z3.BoolRef]
    own_contact: list[z3.BoolRef]
    eps: z3.ArithRef
    none_uv: z3.ArithRef
    chosen: z3.ArithRef  # objective index, or -1 for NONE

    def bind(self, f: TransitionFacts) -> list[z3.BoolRef]:
        """The concrete transition as equalities over the encoding's variables (Python API form)."""
        out = [self.eps == q(f.epsilon), self.none_uv == q(f.none_utility),
               self.chosen == (-1 if f.chosen is None else f.chosen)]
        for i in range(self.n):
            out += [self.s[i] == f.before[i], self.z[i] == f.z[i], self.s1[i] == f.after[i],
                    self.w[i] == q(f.weights[i]), self.uv[i] == q(f.ask_utility[i]),
                    self.witness[i] == z3.BoolVal(bool(f.visitor_witness[i])),
                    self.vetoed[i] == z3.BoolVal(bool(f.vetoed[i])),
                    self.own_contact[i] == z3.BoolVal(f.own_contact(i))]
        return out

    def bind_smtlib(self, f: TransitionFacts) -> str:
        """The same equalities as SMT-LIB text: parsed inside Z3, several times cheaper than building ASTs."""
        parts = [f"(= eps {_smt_rat(f.epsilon)})", f"(= uv_none {_smt_rat(f.none_utility)})",
                 f"(= chosen {_smt_int(-1 if f.chosen is None else f.chosen)})"]
        for i in range(self.n):
            parts += [
                f"(= s_{i} {_smt_int(f.before[i])})", f"(= z_{i} {_smt_int(f.z[i])})",
                f"(= s1_{i} {_smt_int(f.after[i])})", f"(= w_{i} {_smt_rat(f.weights[i])})",
                f"(= uv_{i} {_smt_rat(f.ask_utility[i])})",
                f"(= witness_{i} {'true' if f.visitor_witness[i] else 'false'})",
                f"(= vetoed_{i} {'true' if f.vetoed[i] else 'false'})",
                f"(= own_contact_{i} {'true' if f.own_contact(i) else 'false'})",
            ]
        return f"(assert (and {' '.join(parts)}))"


def _smt_int(value: int) -> str:
    return f"(- {-value})" if value < 0 else str(int(value))


def _smt_rat(value: Fraction) -> str:
    numerator = f"(- {-value.numerator}.0)" if value.numerator < 0 else f"{value.numerator}.0"
    return f"(/ {numerator} {value.denominator}.0)"


def transition_encoding(n: int) -> TransitionEncoding:
    """INVARIANT (I-1, I-2, I-3, I-5, I-6, I-8, I-14): weights positive and summing to 1 in rationals, binary
    state, only open objectives asked, source separation, monotone update, ε-floor and optimality, contact
    provenance."""
    s = [z3.Int(f"s_{i}") for i in range(n)]
    zz = [z3.Int(f"z_{i}") for i in range(n)]
    s1 = [z3.Int(f"s1_{i}") for i in range(n)]
    w = [z3.Real(f"w_{i}") for i in range(n)]
    uv = [z3.Real(f"uv_{i}") for i in range(n)]
    witness = [z3.Bool(f"witness_{i}") for i in range(n)]
    vetoed = [z3.Bool(f"vetoed_{i}") for i in range(n)]
    own_contact = [z3.Bool(f"own_contact_{i}") for i in range(n)]
    eps, none_uv, chosen = z3.Real("eps"), z3.Real("uv_none"), z3.Int("chosen")
    feasible = [z3.And(s1[i] == 0, z3.Not(vetoed[i]), uv[i] >= eps) for i in range(n)]
    inv: list[z3.BoolRef] = [z3.Sum(w) == 1, chosen >= -1, chosen < n]
    for i in range(n):
        inv += [
            w[i] > 0,
            z3.Or(s[i] == 0, s[i] == 1),
            z3.Or(zz[i] == 0, zz[i] == 1),
            s1[i] == z3.If(s[i] >= zz[i], s[i], zz[i]),  # s' = s ∨ z  (eq. 10)
            s1[i] >= s[i],  # monotone (eq. 11)
            z3.Implies(zz[i] == 1, z3.And(s[i] == 0, witness[i])),  # eq. 9: only visitor evidence completes
            # I-14: a contact objective is completed only by a value with visitor provenance that is absent from
            # company and assistant text
            z3.Implies(zz[i] == 1, own_contact[i]),
        ]
    inv.append(z3.Implies(chosen == -1, z3.And([none_uv >= eps] + [z3.Not(f) for f in feasible])))
    for c in range(n):
        # the chosen ASK is feasible and optimal: no feasible ASK has a larger weight, nor an equal weight
        # earlier in approved order (eq. 14)
        optimal = [feasible[c]]
        optimal += [z3.Implies(feasible[j], w[j] < w[c]) for j in range(c)]
        optimal += [z3.Implies(feasible[j], w[j] <= w[c]) for j in range(c + 1, n)]
        inv.append(z3.Implies(chosen == c, z3.And(optimal)))
    return TransitionEncoding(n, z3.Not(z3.And(inv)), s, zz, s1, w, uv, witness, vetoed, own_contact, eps, none_uv,
                              chosen)


@dataclass(frozen=True)
class PolicyNumbers:
    relevance: Fraction
    burden: Fraction
    repetition: Fraction
    privacy: Fraction
    epsilon: Fraction
    none_utility: Fraction
    vetoed_ask_utility: Fraction
    relevance_uncertain_recent: Fraction
    burden_uncertain_recent: Fraction


def _level(name: str) -> tuple[z3.ArithRef, z3.BoolRef]:
    var = z3.Real(name)
    return var, z3.Or([var == q(level) for level in LEVELS])


def utility(p: PolicyNumbers, r: z3.ArithRef, b: z3.ArithRef, d: z3.ArithRef, pr: z3.ArithRef) -> z3.ArithRef:
    return q(p.relevance) * r + q(p.burden) * b + q(p.repetition) * d + q(p.privacy) * pr


def bundle_properties(p: PolicyNumbers) -> dict[str, tuple[str, z3.BoolRef]]:
    """Property name -> (description, NEGATION of the property). Each is proved when its negation is unsat."""
    r, r_dom = _level("R")
    b, b_dom = _level("B")
    d, d_dom = _level("D")
    pr, p_dom = _level("P")
    d2, d2_dom = _level("D2")
    b2, b2_dom = _level("B2")
    p2, p2_dom = _level("P2")
    r2, r2_dom = _level("R2")
    dom = [r_dom, b_dom, d_dom, p_dom]
    refused = z3.Bool("refused")
    stopped = z3.Bool("stopped")
    vetoed = z3.Or(refused, stopped)
    uv = z3.If(vetoed, q(p.vetoed_ask_utility), utility(p, r, b, d, pr))
    eps = q(p.epsilon)
    return {
        "none_always_feasible": (
            "NONE satisfies the visitor-utility floor in every state, so a decision always exists (eq. 14).",
            z3.Not(q(p.none_utility) >= eps),
        ),
        "refused_objective_never_asked": (
            "For every rubric value, an ASK of a refused objective is below epsilon.",
            z3.And(dom + [refused, uv >= eps]),
        ),
        "stop_blocks_every_question": (
            "After a stop request, every ASK is below epsilon whatever its rubric values.",
            z3.And(dom + [stopped, uv >= eps]),
        ),
        "uncertain_objective_not_reasked_in_cooldown": (
            "With the rubric levels for a recent 'do not know yet', the ASK is below epsilon for all D and P.",
            z3.And(dom + [r == q(p.relevance_uncertain_recent), b == q(p.burden_uncertain_recent),
                          z3.Not(vetoed), uv >= eps]),
        ),
        "more_repetition_never_raises_utility": (
            "Raising repetition D never raises U_V (coefficient sign).",
            z3.And(dom + [d2_dom, d2 > d, utility(p, r, b, d2, pr) > utility(p, r, b, d, pr)]),
        ),
        "more_burden_never_raises_utility": (
            "Raising burden B never raises U_V.",
            z3.And(dom + [b2_dom, b2 > b, utility(p, r, b2, d, pr) > utility(p, r, b, d, pr)]),
        ),
        "more_privacy_never_raises_utility": (
            "Raising privacy sensitivity P never raises U_V.",
            z3.And(dom + [p2_dom, p2 > pr, utility(p, r, b, d, p2) > utility(p, r, b, d, pr)]),
        ),
        "more_relevance_never_lowers_utility": (
            "Raising relevance R never lowers U_V.",
            z3.And(dom + [r2_dom, r2 > r, utility(p, r2, b, d, pr) < utility(p, r, b, d, pr)]),
        ),
    }


# D-10: the facts an acceptance rule file must reject on (one rule each), in rule order A08..A12.
CONTACT_FACTS = ("contact_company", "contact_assistant_echo", "contact_confusable", "contact_third_party",
                 "contact_refused")
# D-12: a place or date stated as another person's wish (rule A13).
WISH_FACTS = ("value_others_wish",)


def _fact_var(name: str, value: object) -> z3.ExprRef:
    if isinstance(value, bool):
        return z3.Bool(f"fact_{name}")
    if isinstance(value, int):
        return z3.Int(f"fact_{name}")
    return z3.String(f"fact_{name}")


def _literal(value: object) -> z3.ExprRef:
    if isinstance(value, bool):
        return z3.BoolVal(value)
    if isinstance(value, int):
        return z3.IntVal(value)
    return z3.StringVal(str(value))


def acceptance_properties(rules: Sequence[dict[str, object]]) -> dict[str, tuple[str, z3.BoolRef]]:
    """I-14 over the acceptance rule file: for every candidate fact whatsoever, a Complete or Correct whose
    value is flagged by a D-10 fact (contacts) or a D-12 fact (another person's wish) is rejected by some rule.
    Each negation says "some such fact is accepted" (no rule's conditions all hold), so ``unsat`` proves the
    property for all facts."""
    variables: dict[str, z3.ExprRef] = {"type": z3.String("fact_type")}
    for name in CONTACT_FACTS + WISH_FACTS:
        variables[name] = z3.Bool(f"fact_{name}")
    fires = []
    for rule in rules:
        when = rule["when"]
        assert isinstance(when, dict)
        conditions = []
        for name, value in when.items():
            var = variables.setdefault(str(name), _fact_var(str(name), value))
            conditions.append(var == _literal(value))
        fires.append(z3.And(conditions))
    accepted = z3.Not(z3.Or(fires)) if fires else z3.BoolVal(True)
    valued = z3.Or(variables["type"] == z3.StringVal("complete"), variables["type"] == z3.StringVal("correct"))
    return {
        (f"contact_rejected_when_{name.removeprefix('contact_')}" if name in CONTACT_FACTS
         else f"{name.split('_', 1)[0]}_rejected_when_{name.split('_', 1)[1]}"): (
            f"Every Complete/Correct with {name} = true is rejected by some acceptance rule (I-14).",
            z3.And(accepted, valued, variables[name] == z3.BoolVal(True)),
        )
        for name in CONTACT_FACTS + WISH_FACTS
    }
