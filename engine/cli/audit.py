"""``grace audit ...`` commands.

``grace audit verify RECORDS.jsonl --checkpoint FILE [--checkpoint-log FILE] [--state FILE]
[--key-env NAME | --key-file FILE]`` prints ``OK ...`` and exits 0, or prints ``FAIL <code> [seq=N]: <message>``
and exits 1. Records without a checkpoint fail (``audit.checkpoint_missing``) unless ``--no-checkpoint``.
Caller errors (missing key, unreadable file) raise ``GraceError`` and ``grace`` exits 2; a key option naming
an unset variable is always such an error. The key is never printed.

``grace audit export CONVERSATION --db URL --out records.jsonl --checkpoint head.json [--checkpoint-log F]
[--state F]`` writes exactly what ``verify`` reads: the stored records, the checkpoint stored with the head
record (never a freshly minted one), the append-only checkpoint log and the stored state.

``grace audit verify-stored CONVERSATION --db URL`` runs the same checks on the store directly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from audit.chain import verify
from audit.errors import ExportFormatError
from audit.jsonl import read_checkpoint, read_jsonl
from audit.keys import DEFAULT_KEY_ENV, key_from_env, key_from_file
from audit.logging import configure_logging

if TYPE_CHECKING:
    from engine.rules.loader import RuleBundle
    from llm_adapters.replay import Change

EXIT_OK = 0
EXIT_FAILED = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("audit", help="verify exported audit trails")
    commands = parser.add_subparsers(dest="audit_command", required=True)

    check = commands.add_parser("verify", help="verify a JSON Lines export of sealed records")
    check.add_argument("records", type=Path, help="records file (JSON Lines, chain order)")
    check.add_argument("--checkpoint", type=Path, help="head checkpoint file (detects a dropped tail)")
    check.add_argument("--checkpoint-log", type=Path, help="checkpoint log (JSON Lines, oldest first)")
    check.add_argument("--state", type=Path, help="stored conversation state (JSON): must be the sealed state")
    check.add_argument(
        "--no-checkpoint",
        action="store_true",
        help="accept records without a checkpoint (a dropped tail or a rewritten chain then goes unseen)",
    )
    _key_options(check)
    check.add_argument(
        "--allow-unanchored-tail",
        action="store_true",
        help="accept records after the checkpoint's seq (checkpoint written periodically, not per turn)",
    )
    check.set_defaults(handler=_verify)

    export = commands.add_parser("export", help="export a stored conversation's records and checkpoint for verify")
    export.add_argument("conversation", help="conversation id")
    export.add_argument("--db", required=True, help="store URL (sqlite:///path or postgresql://...)")
    export.add_argument("--out", type=Path, required=True, help="records file to write (JSON Lines)")
    export.add_argument("--checkpoint", type=Path, required=True, help="head checkpoint file to write")
    export.add_argument("--checkpoint-log", type=Path, help="checkpoint log file to write (JSON Lines)")
    export.add_argument("--state", type=Path, help="stored state file to write (JSON; personal data encrypted)")
    export.set_defaults(handler=_export)

    stored = commands.add_parser("verify-stored", help="verify a conversation in the store (chain, state, log)")
    stored.add_argument("conversation", help="conversation id")
    stored.add_argument("--db", required=True, help="store URL (sqlite:///path or postgresql://...)")
    _key_options(stored)
    stored.set_defaults(handler=_verify_stored)

    replay = commands.add_parser("replay", help="re-decide a stored conversation under a rule bundle; print changes")
    replay.add_argument("conversation", help="conversation id")
    replay.add_argument("--db", required=True, help="store URL (sqlite:///path or postgresql://...)")
    replay.add_argument("--rules", type=Path, help="rule bundle folder to decide with (default: the shipped one)")
    replay.add_argument("--bundle-version", metavar="VERSION",
                        help="decide with this published version, rebuilt whole from the rules archive "
                             "(e.g. the version the conversation was pinned to)")
    _key_options(replay)
    replay.add_argument("--registry", type=Path, action="append", default=[],
                        help="published goal-spec folder(s) (default: the demos' published folders)")
    replay.set_defaults(handler=_replay)


def _key_options(parser: argparse.ArgumentParser) -> None:
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--key-env", metavar="NAME", help=f"env variable holding the audit key ({DEFAULT_KEY_ENV})")
    keys.add_argument("--key-file", type=Path, metavar="FILE", help="file holding the audit key")


def _key(args: argparse.Namespace) -> bytes:
    """The audit key; an unset variable or unreadable file is a coded error (exit 2), never a silent OK."""
    if args.key_file is not None:
        return key_from_file(args.key_file)
    return key_from_env(args.key_env or DEFAULT_KEY_ENV)


def _verify(args: argparse.Namespace) -> int:
    if not structlog.is_configured():  # keep stdout for the verdict; logs (redacted) go to stderr
        configure_logging(redaction_key=None, level="warning", stream=sys.stderr)
    # An explicitly named key must exist even when nothing needs it: a typo must never end in "OK".
    explicit_key = _key(args) if args.key_env is not None or args.key_file is not None else None
    try:
        records = read_jsonl(args.records)
        checkpoint = read_checkpoint(args.checkpoint) if args.checkpoint is not None else None
        cp_log = read_jsonl(args.checkpoint_log) if args.checkpoint_log is not None else None
        state = read_checkpoint(args.state) if args.state is not None else None
    except ExportFormatError as exc:
        where = "" if exc.line is None else f" line={exc.line}"
        print(f"FAIL {exc.code}{where}: {exc.message}")
        return EXIT_FAILED
    key = explicit_key
    if key is None and (checkpoint is not None or cp_log is not None):
        key = _key(args)
    report = verify(
        records,
        checkpoint,
        key,
        allow_unanchored_tail=args.allow_unanchored_tail,
        require_checkpoint=not args.no_checkpoint,
        checkpoint_log=cp_log,
        stored_state=state,
    )
    print(report.summary())
    if report.ok and checkpoint is None and records:
        print(
            "note: no checkpoint given; a dropped tail or a rewritten chain cannot be detected",
            file=sys.stderr,
        )
    return EXIT_OK if report.ok else EXIT_FAILED


def _export(args: argparse.Namespace) -> int:
    from audit.jsonl import write_checkpoint, write_jsonl
    from engine.storage import open_store

    store = open_store(args.db)
    try:
        records = store.records(args.conversation)
        state = store.stored_state(args.conversation)
        cp_log = store.checkpoints(args.conversation)
    finally:
        store.close()
    head = state.get("audit_head")
    if records and head is None:
        raise ExportFormatError(
            f"conversation {args.conversation} has {len(records)} record(s) but no stored checkpoint",
            code="audit.export.no_checkpoint",
        )
    write_jsonl(args.out, records)
    if head is not None:
        write_checkpoint(args.checkpoint, head)
    if args.checkpoint_log is not None:
        write_jsonl(args.checkpoint_log, cp_log)
    if args.state is not None:
        write_checkpoint(args.state, state)
    print(f"exported {len(records)} record(s) of {args.conversation} to {args.out}")
    return EXIT_OK


def _verify_stored(args: argparse.Namespace) -> int:
    from audit.stored import verify_stored
    from engine.storage import open_store

    key = _key(args)
    store = open_store(args.db)
    try:
        report = verify_stored(store, args.conversation, key)
    finally:
        store.close()
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED


def _replay(args: argparse.Namespace) -> int:
    from engine.cli.audit_replay import replay_stored_conversation
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.rules.loader import DEFAULT_RULES_DIR

    key = _key(args) if args.key_env is not None or args.key_file is not None else _optional_key()
    if args.bundle_version is not None:
        from engine.kernel.decision.bundle_proofs import check_proofs
        from engine.rules.archive import published_bundle

        with published_bundle(args.bundle_version, args.rules or DEFAULT_RULES_DIR) as bundle:
            check_proofs(bundle)
            return _print_changes(args, bundle, replay_stored_conversation(
                args.db, args.conversation, bundle, list(args.registry), audit_key=key))
    bundle = load_verified_bundle(args.rules or DEFAULT_RULES_DIR)
    changes = replay_stored_conversation(args.db, args.conversation, bundle, list(args.registry), audit_key=key)
    return _print_changes(args, bundle, changes)


def _print_changes(args: argparse.Namespace, bundle: RuleBundle, changes: list[Change] | None) -> int:
    if changes is None:
        print(f"erased: conversation {args.conversation} was erased; its decisions cannot be replayed")
        return 0
    if not changes:
        print(f"no decision changes under bundle {bundle.version} ({bundle.content_hash})")
        return 0
    print(f"{len(changes)} decision change(s) under bundle {bundle.version} ({bundle.content_hash}):")
    for change in changes:
        print(f"  turn {change.turn}: {change.field} {change.recorded} -> {change.replayed}")
    return 1


def _optional_key() -> bytes | None:
    """The default audit key if set (needed to decrypt encrypted conversations), else None."""
    import os

    return key_from_env() if os.environ.get(DEFAULT_KEY_ENV, "").strip() else None
