"""Loading a rule bundle for service: schema-valid, published, unmodified, and every Z3 property proved."""

from __future__ import annotations

from pathlib import Path

import structlog

from engine.errors import RuleBundleError
from engine.kernel.decision.invariants import ProofResult, prove_bundle
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle

log = structlog.get_logger("grace.rules")


def check_proofs(bundle: RuleBundle) -> list[ProofResult]:
    results = prove_bundle(bundle)
    failed = [r for r in results if r.status != "proved"]
    if failed:
        names = ", ".join(f"{r.name} ({r.status})" for r in failed)
        log.error("rules.bundle.proof_failed", version=bundle.version, failed=names)
        raise RuleBundleError(f"bundle {bundle.version}: properties not proved: {names}",
                              code="rules.property_not_proved")
    return results


def load_verified_bundle(root: Path = DEFAULT_RULES_DIR, *, require_published: bool = True) -> RuleBundle:
    bundle = load_bundle(root, require_published=require_published)
    check_proofs(bundle)
    return bundle
