"""``grace audit ...`` commands.

``grace audit verify RECORDS.jsonl [--checkpoint FILE] [--key-env NAME | --key-file FILE]`` prints ``OK ...``
and exits 0, or prints ``FAIL <code> [seq=N]: <message>`` and exits 1. Caller errors (missing key, unreadable
file) raise ``GraceError`` and ``grace`` exits 2. The key is read only when a checkpoint is given and is
never printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import structlog

from audit.chain import verify
from audit.errors import ExportFormatError
from audit.jsonl import read_checkpoint, read_jsonl
from audit.keys import DEFAULT_KEY_ENV, key_from_env, key_from_file
from audit.logging import configure_logging

EXIT_OK = 0
EXIT_FAILED = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("audit", help="verify exported audit trails")
    commands = parser.add_subparsers(dest="audit_command", required=True)

    check = commands.add_parser("verify", help="verify a JSON Lines export of sealed records")
    check.add_argument("records", type=Path, help="records file (JSON Lines, chain order)")
    check.add_argument("--checkpoint", type=Path, help="head checkpoint file (detects a dropped tail)")
    keys = check.add_mutually_exclusive_group()
    keys.add_argument(
        "--key-env",
        default=DEFAULT_KEY_ENV,
        metavar="NAME",
        help=f"env variable holding the key ({DEFAULT_KEY_ENV})",
    )
    keys.add_argument("--key-file", type=Path, metavar="FILE", help="file holding the key")
    check.add_argument(
        "--allow-unanchored-tail",
        action="store_true",
        help="accept records after the checkpoint's seq (checkpoint written periodically, not per turn)",
    )
    check.set_defaults(handler=_verify)

    replay = commands.add_parser("replay", help="re-decide a stored conversation under a rule bundle; print changes")
    replay.add_argument("conversation", help="conversation id")
    replay.add_argument("--db", required=True, help="store URL (sqlite:///path or postgresql://...)")
    replay.add_argument("--rules", type=Path, help="rule bundle folder to decide with (default: the shipped one)")
    replay.add_argument("--registry", type=Path, action="append", default=[],
                        help="published goal-spec folder(s) (default: the demos' published folders)")
    replay.set_defaults(handler=_replay)


def _verify(args: argparse.Namespace) -> int:
    if not structlog.is_configured():  # keep stdout for the verdict; logs (redacted) go to stderr
        configure_logging(redaction_key=None, level="warning", stream=sys.stderr)
    try:
        records = read_jsonl(args.records)
        checkpoint = read_checkpoint(args.checkpoint) if args.checkpoint is not None else None
    except ExportFormatError as exc:
        where = "" if exc.line is None else f" line={exc.line}"
        print(f"FAIL {exc.code}{where}: {exc.message}")
        return EXIT_FAILED
    key = None
    if checkpoint is not None:
        key = key_from_file(args.key_file) if args.key_file is not None else key_from_env(args.key_env)
    report = verify(records, checkpoint, key, allow_unanchored_tail=args.allow_unanchored_tail)
    print(report.summary())
    if report.ok and checkpoint is None:
        print(
            "note: no checkpoint given; a dropped tail or a rewritten chain cannot be detected",
            file=sys.stderr,
        )
    return EXIT_OK if report.ok else EXIT_FAILED


def _replay(args: argparse.Namespace) -> int:
    from audit.replay import replay_stored_conversation
    from engine.rules_bundle import DEFAULT_RULES_DIR
    from engine.verified_bundle import load_verified_bundle

    bundle = load_verified_bundle(args.rules or DEFAULT_RULES_DIR)
    changes = replay_stored_conversation(args.db, args.conversation, bundle, list(args.registry))
    if not changes:
        print(f"no decision changes under bundle {bundle.version} ({bundle.content_hash})")
        return 0
    print(f"{len(changes)} decision change(s) under bundle {bundle.version} ({bundle.content_hash}):")
    for change in changes:
        print(f"  turn {change.turn}: {change.field} {change.recorded} -> {change.replayed}")
    return 1
