"""``grace goals validate|approve|list``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.errors import GoalSpecError, PublicationError
from engine.goals.publication import approve, list_published
from engine.goals.validation import read_spec_file, semantic_issues
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.rules.loader import DEFAULT_RULES_DIR


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    goals = sub.add_parser("goals", help="validate, approve and list goal specs")
    gsub = goals.add_subparsers(dest="goals_command", required=True)
    validate = gsub.add_parser("validate", help="deterministic validation of a candidate goal spec")
    validate.add_argument("file", type=Path)
    validate.add_argument("--json", action="store_true", help="print issues as JSON")
    validate.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rule bundle folder")
    validate.set_defaults(handler=_validate)
    approve_p = gsub.add_parser("approve", help="publish an immutable, hashed version")
    approve_p.add_argument("file", type=Path)
    approve_p.add_argument("--by", required=True, help="approver name")
    approve_p.add_argument("--registry", type=Path,
                           help="published specs folder (default: <file dir>/published; created if only it is missing)")
    approve_p.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rule bundle folder")
    approve_p.set_defaults(handler=_approve)
    list_p = gsub.add_parser("list", help="list published versions in a registry folder")
    list_p.add_argument("registry", type=Path)
    list_p.set_defaults(handler=_list)


def _validate(args: argparse.Namespace) -> int:
    bundle = load_verified_bundle(args.rules)
    try:
        spec = read_spec_file(args.file)
        issues = semantic_issues(spec, bundle)
    except GoalSpecError as exc:
        issues = exc.issues
    if args.json:
        print(json.dumps({"valid": not issues, "issues": [{"code": c, "message": m} for c, m in issues]}, indent=2))
    elif issues:
        for code, message in issues:
            print(f"{code}: {message}")
    else:
        print(f"valid: {args.file}")
    return 1 if issues else 0


def _approve(args: argparse.Namespace) -> int:
    bundle = load_verified_bundle(args.rules)
    spec = read_spec_file(args.file)
    registry = args.registry or args.file.parent / "published"
    _check_registry(registry)
    published = approve(spec, bundle, args.by, registry)
    print(f"published {published.ref} {published.content_hash} by {published.approved_by} "
          f"at {published.approved_at.isoformat()} -> {registry / spec.id / f'v{published.version}.json'}")
    return 0


def _check_registry(registry: Path) -> None:
    """A registry folder may be new, but its parent must exist: a deeper missing path is more likely a typo."""
    if registry.exists() and not registry.is_dir():
        raise PublicationError(f"registry {registry} is not a folder", code="goalspec.registry_invalid")
    if not registry.exists() and not registry.parent.is_dir():
        raise PublicationError(f"registry parent folder {registry.parent} does not exist; create it first",
                               code="goalspec.registry_missing")


def _list(args: argparse.Namespace) -> int:
    for published in list_published(args.registry):
        print(f"{published.ref}\t{published.content_hash}\t{published.approved_by}\t{published.approved_at.isoformat()}")
    return 0
