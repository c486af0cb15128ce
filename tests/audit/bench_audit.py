"""Per-turn cost of the audit path (redact -> seal -> checkpoint) and of verification. Prints numbers only.

/work/venv/bin/python -m tests.audit.bench_audit [--turns 200]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable

import structlog

from audit.canonical import canonical_bytes
from audit.chain import SealedHead, checkpoint_of, seal, verify
from audit.jsonl import dumps_jsonl, parse_jsonl
from audit.redaction import Redactor
from audit.vault import FieldCipher, new_data_key, protect_record
from tests.audit.factory import KEY, fake_state_hash, make_record


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e6)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    redactor = Redactor(KEY)
    record = make_record(turn=4)  # the turn that carries an e-mail address and a phone number
    redacted = redactor.redact(record)
    sealed = seal(redacted, None)
    cipher = FieldCipher("conv-1", new_data_key())
    protected = protect_record(record, redacted, cipher)
    print(f"record size (canonical bytes): {len(canonical_bytes(sealed))}; "
          f"with personal parts encrypted: {len(canonical_bytes(seal(protected, None)))}")
    for name, fn in [
        ("redact", lambda: redactor.redact(record)),
        ("seal (validate + canonical + sha256)", lambda: seal(redacted, None)),
        ("seal without schema validation", lambda: seal(redacted, None, validate=False)),
        ("encrypt personal parts (AES-SIV)", lambda: protect_record(record, redacted, cipher)),
        ("checkpoint (HMAC)", lambda: checkpoint_of(SealedHead.of(sealed), KEY, state_hash=fake_state_hash([sealed]),
                                                    counter=1)),
        ("canonical_bytes", lambda: canonical_bytes(sealed)),
    ]:
        median, p95 = _time(fn, 300)
        print(f"{name:<40} median {median:8.1f} us   p95 {p95:8.1f} us")

    chain: list[dict[str, object]] = []
    start = time.perf_counter()
    for turn in range(1, args.turns + 1):
        body = redactor.redact(make_record("bench", turn))
        chain.append(seal(body, SealedHead.of(chain[-1]) if chain else None))  # type: ignore[arg-type]
    per_turn = (time.perf_counter() - start) / args.turns * 1e6
    cp = checkpoint_of(SealedHead.of(chain[-1]), KEY, state_hash=fake_state_hash(chain),  # type: ignore[arg-type]
                       counter=len(chain))
    print(f"build chain of {args.turns} (redact+seal per turn): {per_turn:8.1f} us/turn")
    median, _ = _time(lambda: verify(chain, cp, KEY), 5)  # type: ignore[arg-type]
    print(f"verify chain of {args.turns}: {median / 1000:8.2f} ms total, {median / args.turns:6.1f} us/record")
    data = dumps_jsonl(chain)  # type: ignore[arg-type]
    median, _ = _time(lambda: parse_jsonl(data), 5)
    print(f"parse JSONL export ({len(data)} bytes): {median / 1000:8.2f} ms")


if __name__ == "__main__":
    main()
