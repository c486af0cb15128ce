"""Which slots a service's intent asks for: decided once, from the schema alone (never from the dialogues).

The rule, applied the same way to every service and every SGD-X wording (the wordings keep the intents):

1. The *main intent* is the service's transactional intent (the one that books, buys or sends) with the most
   required slots; a tie goes to the one the schema lists first. A service with no transactional intent uses
   its intent with the most required slots, the same way.
2. The intent asks for the main intent's required slots, in the schema's order: what the company cannot act
   without. Optional slots are left out (the company does not insist on them).
3. A main intent with no required slot asks for its optional slots instead (a search-only service such as a
   movie finder still needs something from the visitor).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.evaluation.onboarding.errors import OnboardingError
from engine.evaluation.sgd.corpus import SgdIntent, SgdService, SgdSlot


@dataclass(frozen=True)
class SlotChoice:
    service: str
    intent: str  # the main intent's name
    rule: str  # which clause of the rule chose the slots ("required" or "optional")
    slots: tuple[SgdSlot, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.slots)


def main_intent(service: SgdService) -> SgdIntent:
    if not service.intents:
        raise OnboardingError(f"{service.service_name} has no intent in the schema", code="onboarding.no_slots")
    transactional = [i for i in service.intents if i.is_transactional]
    pool = transactional or list(service.intents)
    most = max(len(i.required_slots) for i in pool)
    return next(i for i in pool if len(i.required_slots) == most)


def choose_slots(service: SgdService) -> SlotChoice:
    intent = main_intent(service)
    rule, names = ("required", list(intent.required_slots))
    if not names:
        rule, names = ("optional", list(intent.optional_slots))
    slots = []
    for name in names:
        slot = service.slot(name)
        if slot is None:
            raise OnboardingError(f"{service.service_name}: intent {intent.name} names slot {name!r}, which the "
                                  "schema does not list", code="onboarding.no_slots")
        slots.append(slot)
    if not slots:
        raise OnboardingError(f"{service.service_name}: intent {intent.name} names no slot",
                              code="onboarding.no_slots")
    return SlotChoice(service.service_name, intent.name, rule, tuple(slots))
