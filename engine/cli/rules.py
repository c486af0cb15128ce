"""``grace rules validate|prove|test|approve``."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.kernel.decision.invariants import prove_bundle
from engine.kernel.decision.samples import rules_without_samples, run_samples
from engine.retrieval.tiers import run_tier_samples
from engine.rules.archive import materialize, missing_blobs, publication, published_versions, store_blobs
from engine.rules.loader import DEFAULT_RULES_DIR, approve_bundle, load_bundle


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rules = sub.add_parser("rules", help="validate, publish and prove the rule bundle")
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    for name, handler, text in (
        ("validate", _validate, "schema-validate every rule file and show the bundle hash"),
        ("prove", _prove, "prove the bundle's properties with Z3, one line per property"),
        ("test", _test, "run every acceptance rule's reject/accept samples through the compiled ruleset"),
    ):
        p = rsub.add_parser(name, help=text)
        p.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
        p.set_defaults(handler=handler)
    approve = rsub.add_parser("approve", help="publish the bundle version as immutable")
    approve.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    approve.add_argument("--by", required=True)
    approve.set_defaults(handler=_approve)
    versions = rsub.add_parser("versions", help="list published versions: hash, date, archived whole, proofs")
    versions.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    versions.set_defaults(handler=_versions)
    export = rsub.add_parser("export", help="rebuild a published version byte for byte from the archive")
    export.add_argument("version")
    export.add_argument("--out", type=Path, required=True, help="a new or empty folder")
    export.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    export.set_defaults(handler=_export)


def _validate(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.rules, require_published=False)
    state = "published" if bundle.published else "NOT published"
    print(f"valid: bundle {bundle.version} ({len(bundle.files)} files) {bundle.content_hash} [{state}]")
    return 0


def _prove(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.rules, require_published=False)
    results = prove_bundle(bundle)
    for result in results:
        print(f"{result.status:8} {result.name}: {result.description}")
        if result.counterexample:
            print(f"         counterexample: {result.counterexample}")
    return 0 if all(r.status == "proved" for r in results) else 1


def _test(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.rules, require_published=False)
    results = run_samples(bundle)
    for result in results:
        print(result.line())
    missing = rules_without_samples(bundle)
    failed = [r for r in results if not r.ok]
    for rule_id in missing:
        print(f"FAIL {rule_id} has no reject or no accept sample")
    tiers = run_tier_samples(bundle)  # the graded reply's policy (retrieval.json answering.samples)
    for tier in tiers:
        print(tier.line())
    tier_failed = [t for t in tiers if not t.ok]
    print(f"{len(results) - len(failed)}/{len(results)} samples hold" + (f"; {len(missing)} rules lack samples"
                                                                       if missing else "")
          + f"; answering tiers {len(tiers) - len(tier_failed)}/{len(tiers)}")
    return 1 if failed or missing or tier_failed else 0


def _approve(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.rules, require_published=False)
    prove_failures = [r.name for r in prove_bundle(bundle) if r.status != "proved"]
    if prove_failures:
        print(f"refused: properties not proved: {', '.join(prove_failures)}")
        return 1
    sample_failures = [f"{r.rule_id} {r.expectation}[{r.index}]" for r in run_samples(bundle) if not r.ok]
    sample_failures += [f"{rule_id} (no samples)" for rule_id in rules_without_samples(bundle)]
    sample_failures += [f"answering.samples[{t.index}]" for t in run_tier_samples(bundle) if not t.ok]
    if sample_failures:
        print(f"refused: acceptance samples fail: {', '.join(sample_failures)}")
        return 1
    proofs = [{"name": r.name, "status": r.status, "description": r.description} for r in prove_bundle(bundle)]
    already = _published_record(args.rules)
    record = approve_bundle(args.rules, args.by, proofs=proofs)
    archived = store_blobs(args.rules.resolve(), record["files"])
    if already is not None and already.get("content_hash") == record["content_hash"]:
        # A published version is immutable: approving the same content again records nothing, not even --by.
        print(f"unchanged: bundle {record['version']} {record['content_hash']} is already published with this "
              f"content, approved by {record['approved_by']} at {record['approved_at']}; --by {args.by.strip()!r} "
              f"is not recorded (a published version is immutable: change a rule file and bump bundle.json "
              f"'version' to publish again)")
        return 0
    print(f"published bundle {record['version']} {record['content_hash']} by {record['approved_by']} "
          f"({archived} new file(s) archived)")
    return 0


def _published_record(root: Path) -> dict[str, object] | None:
    """The publication record of the bundle's current version, if that version is already published."""
    import json

    try:
        version = json.loads((root / "bundle.json").read_text(encoding="utf-8"))["version"]
        target = root / "published" / f"{version}.json"
        return dict(json.loads(target.read_text(encoding="utf-8"))) if target.is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # approve_bundle reports a broken bundle with its own coded error


def _versions(args: argparse.Namespace) -> int:
    root = args.rules.resolve()
    for version in published_versions(root):
        record = publication(root, version)
        missing = missing_blobs(root, version)
        whole = "whole" if not missing else f"INCOMPLETE ({len(missing)} files missing)"
        proofs = record.get("proofs")
        proved = (f"{sum(p['status'] == 'proved' for p in proofs)}/{len(proofs)} proved" if proofs
                  else "proofs not recorded")
        print(f"{version:8} {record['content_hash'][:23]}…  {record['approved_at'][:10]}  {whole:10} {proved:22} "
              f"{record['approved_by']}")
    return 0


def _export(args: argparse.Namespace) -> int:
    target = materialize(args.rules.resolve(), args.version, args.out)
    print(f"bundle {args.version} written to {target} (every file hash and the bundle hash re-checked)")
    return 0
