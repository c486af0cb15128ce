"""``grace conversations erase ID --db URL``: crypto-erase a conversation (operator action, logged).

The conversation's data key is destroyed; its messages, values and the personal parts of its audit records
stay as ciphertext nobody can read. The audit chain still verifies; replay reports it as erased.
"""

from __future__ import annotations

import argparse
import getpass
from typing import Any

import structlog

log = structlog.get_logger("engine.cli.conversations")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("conversations", help="operator actions on stored conversations")
    commands = parser.add_subparsers(dest="conversations_command", required=True)
    erase = commands.add_parser("erase", help="erase a conversation's personal data (destroy its key)")
    erase.add_argument("conversation", help="conversation id")
    erase.add_argument("--db", required=True, help="store URL (sqlite:///path or postgresql://...)")
    erase.add_argument("--actor", default=None, help="who erases (logged; default: cli:<login name>)")
    erase.set_defaults(handler=_erase)


def _erase(args: argparse.Namespace) -> int:
    from engine.storage import open_store

    actor = args.actor or f"cli:{getpass.getuser()}"
    store = open_store(args.db)
    try:
        done = store.erase(args.conversation, actor=actor)
    finally:
        store.close()
    log.info("operator.conversation.erased", conversation_id=args.conversation, actor=done.actor)
    print(f"erased {done.conversation_id} at {done.at} by {done.actor}")
    return 0
