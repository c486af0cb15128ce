"""Another person's wish (SPEC.md D-12, I-14): a place or date stated as someone else's wish never completes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.commands import Complete, Span
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.decider import Decider
from engine.kernel.decision.invariants import prove_bundle
from engine.kernel.decision.provenance import ProvenanceContext, ProvenanceRules, others_wish
from engine.rules.loader import RuleBundle, load_bundle
from tests.conftest import make_spec, publish

PLACES = ["Leeds", "Sevilla", "Lyon", "Porto Alegre", "Bath", "Namur", "Valparaíso", "Trois-Rivières"]
RELATIONS = {
    "en": ["My sister", "My husband", "Our son", "My best friend", "My parents", "My boss", "Her daughter"],
    "es": ["Mi hermana", "Mi marido", "Nuestro hijo", "Mi amiga", "Mis padres", "Mi jefe", "Su hija"],
    "fr": ["Ma sœur", "Mon mari", "Notre fils", "Mon amie", "Mes parents", "Mon patron", "Sa fille"],
}
WISHES = {
    "en": ["wants to live in {v}", "would really like to move to {v}", "prefers {v}", "is hoping to settle in {v}",
           "plans to buy in {v}", "is moving to {v}"],
    "es": ["quiere vivir en {v}", "preferiría {v}", "se muda a {v}", "desea comprar en {v}", "planea ir a {v}"],
    "fr": ["veut habiter à {v}", "voudrait déménager à {v}", "préfère {v}", "souhaite acheter à {v}",
           "compte s'installer à {v}"],
}
OWN = {
    "en": ["I want to live in {v}", "We'd like to move to {v}", "{v}, please", "I'm looking in {v}",
           "I want to move to {v} because my sister lives there", "My sister and I want to live in {v}"],
    "es": ["Quiero vivir en {v}", "Buscamos en {v}", "{v}, por favor", "Mi hermana y yo queremos vivir en {v}"],
    "fr": ["Je veux habiter à {v}", "Nous cherchons à {v}", "{v}, s'il vous plaît",
           "Ma sœur et moi voulons vivre à {v}"],
}
ADOPTED = {"en": "{m}, and so do I.", "es": "{m}, y yo también.", "fr": "{m}. Moi aussi."}


@pytest.fixture(scope="module")
def rules(bundle: RuleBundle) -> ProvenanceRules:
    return ProvenanceRules.from_bundle(bundle)


def _judge(message: str, value: str, rules: ProvenanceRules) -> bool:
    start = message.index(value)
    # the value cited alone, and inside a span that covers the whole message (as the offline proposer cites)
    alone = others_wish(message, value, (start, start + len(value)), rules)
    assert others_wish(message, value, (0, len(message)), rules) == alone
    return alone


LANGS = st.sampled_from(sorted(RELATIONS))


@settings(max_examples=200, deadline=None)
@given(LANGS, st.data())
def test_another_persons_wish_is_never_the_visitors(rules: ProvenanceRules, lang: str, data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(PLACES))
    who = data.draw(st.sampled_from(RELATIONS[lang]))
    wish = data.draw(st.sampled_from(WISHES[lang])).format(v=place)
    assert _judge(f"{who} {wish}.", place, rules)


@settings(max_examples=200, deadline=None)
@given(LANGS, st.data())
def test_the_visitors_own_or_adopted_wish_stands(rules: ProvenanceRules, lang: str, data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(PLACES))
    own = data.draw(st.sampled_from(OWN[lang])).format(v=place)
    assert not _judge(own, place, rules)
    who = data.draw(st.sampled_from(RELATIONS[lang]))
    wish = data.draw(st.sampled_from(WISHES[lang])).format(v=place)
    assert not _judge(ADOPTED[lang].format(m=f"{who} {wish}"), place, rules)


def test_a_date_wished_by_someone_else(rules: ProvenanceRules) -> None:
    assert _judge("My husband would like the 3rd of May.", "3rd of May", rules)
    assert _judge("She prefers Friday 12 June.", "Friday 12 June", rules)
    assert not _judge("We would like the 3rd of May.", "3rd of May", rules)


def _state(spec_hash: str, ref: str, bundle: RuleBundle, text: str) -> ConversationState:
    return ConversationState(conversation_id="c", goal_ref=ref, goal_hash=spec_hash, bundle_hash=bundle.content_hash,
                             language="en", turn=1, bits=[0, 0, 0, 0],
                             messages=[Message(role=Role.VISITOR, turn=1, text=text)])


def _decide(bundle: RuleBundle, text: str, value: str) -> tuple[str, list[int], str | None]:
    spec = publish(make_spec())
    decider = Decider(spec, bundle)
    start = text.index(value)
    command = Complete(objective="location", value=value,
                       span=Span(turn=1, start=start, end=start + len(value), quote=value))
    decision = decider.decide(_state(spec.content_hash, spec.ref, bundle, text), [command],
                              context=ProvenanceContext(decider.company))
    return decision.candidates[0].reason, decision.bits_after, decision.fail_closed


@pytest.mark.invariant("I-14")
def test_the_decider_rejects_another_persons_place_with_its_code(bundle: RuleBundle) -> None:
    assert _decide(bundle, "My sister wants to live in Leeds.", "Leeds") == ("provenance.others_wish", [0, 0, 0, 0],
                                                                             None)
    assert _decide(bundle, "I want to live in Leeds.", "Leeds")[:2] == ("accepted", [0, 1, 0, 0])


@pytest.mark.invariant("I-14", "I-10")
def test_a_rule_file_without_a13_is_refuted_and_fails_closed(core_rules_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "rules"
    shutil.copytree(core_rules_dir, target)
    path = target / "acceptance.json"
    data = json.loads(path.read_text())
    data["rules"] = [r for r in data["rules"] if r["id"] != "A13"]
    path.write_text(json.dumps(data))
    weak = load_bundle(target, require_published=False)
    proofs = {r.name: r.status for r in prove_bundle(weak)}
    assert proofs["value_rejected_when_others_wish"] == "refuted"
    reason, bits, fail_closed = _decide(weak, "My sister wants to live in Leeds.", "Leeds")
    assert reason == "accepted"  # the weakened rule file let it through ...
    assert fail_closed == "invariant.violated" and bits == [0, 0, 0, 0]  # ... the per-transition Z3 check did not
