"""One digest over the sealed audit records (JSON with key order, and checkpoints) of seeded random turns, as the
turn path of this checkout seals them: run it in two checkouts to show that a change to the audit trail leaves
every byte, hash and error as it was.

    python -m benchmarks.sealed_digest --turns 3000 --seed 16

Each turn is one of the differential test's random cases, decided and sealed with a fixed clock and key, every
third one with a per-conversation cipher, every other one after a previous head, with questions, notes and
fail-closed messages holding contact data. Errors (records the schema refuses) are digested by type and message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import engine.kernel.turn_record as turn_record
from audit.vault import FieldCipher
from engine.cli import _configure_logging
from engine.evaluation.differential import random_case
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.kernel.decision.decider import Decider
from engine.kernel.ports import GroundedAnswer, Proposal
from engine.kernel.stored_state import stored_form
from engine.rules.loader import DEFAULT_RULES_DIR

KEY = b"bench-key-0123456789abcdef012345"


def _seal(head: dict[str, Any] | None, stored: dict[str, Any], cipher: FieldCipher | None, **fields: Any) -> Any:
    if hasattr(turn_record, "build_and_seal"):  # the turn's call since issue 16
        return turn_record.build_and_seal(head, KEY, stored_state=stored, cipher=cipher, **fields)
    record = turn_record.build_record(**fields)
    return turn_record.seal_for_store(record, head, KEY, stored_state=stored, cipher=cipher)


def digest(turns: int, seed: int) -> tuple[str, int]:
    bundle = load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)
    rng = random.Random(seed)
    out, errors = hashlib.sha256(), 0
    for i in range(turns):
        case = random_case(rng)
        decision = Decider(case.spec, bundle).decide(case.state, case.commands,
                                                     company_question=case.company_question)
        now = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC) + timedelta(microseconds=i * 7919)
        cid = case.state.conversation_id
        cipher = FieldCipher(cid, bytes(range(64))) if i % 3 == 0 else None
        head = None if i % 2 else {"conversation_id": cid, "seq": i, "head_hash": f"sha256:{i:064x}", "counter": i + 1}
        fields = dict(spec=case.spec, bundle=bundle, state_before=case.state, state_after=decision.new_state,
                      proposal=Proposal(adapter="bench", adapter_version="1"), decision=decision,
                      question=rng.choice([None, "Your e-mail, Vera? (e.g. vera@example.org)", "Call 600 000 005?"]),
                      answer=GroundedAnswer(), fail_closed=rng.choice([None, ("x.y", "failed for a@b.com")]),
                      timings={"total_ms": 1.5}, received_at=now, completed_at=now,
                      extra_notes=[rng.choice(["n", "tel 611 222 333"])])
        try:
            sealed = _seal(head, stored_form(decision.new_state, cipher), cipher, **fields)
            out.update(json.dumps(sealed.record, ensure_ascii=False).encode("utf-8", "surrogatepass"))
            out.update(json.dumps(sealed.checkpoint).encode())
        except Exception as exc:  # digested: the same records must fail the same way
            errors += 1
            out.update(f"{type(exc).__name__}:{exc}".encode("utf-8", "surrogatepass"))
    return out.hexdigest(), errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=3000, help="random turns (1..50000)")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 50000:
        parser.error("--turns must be 1..50000")
    _configure_logging()
    value, errors = digest(args.turns, args.seed)
    print(f"{args.turns} turns (seed {args.seed}), {errors} refused: sha256 {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
