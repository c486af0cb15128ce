"""Wiring of the embedded defaults: offline proposer, embedded retrieval or TRACE directory answerer (per demo.json),
in-memory or given store."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from audit.keys import DEFAULT_KEY_ENV, key_from_env
from engine.demos import DEFAULT_VARIANT, Demo, load_demo
from engine.errors import InputError
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.kernel.goal_models import PublishedGoalSpec, company_name
from engine.kernel.ports import Answerer, ConversationStore
from engine.kernel.turn import RoleChoice, TurnRoles, TurnRuntime
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle
from engine.storage.memory import InMemoryStore

if TYPE_CHECKING:
    from engine.retrieval.corpus import CorpusManifest

def audit_key_from_env() -> bytes:
    """The audit HMAC key from GRACE_AUDIT_KEY, read by the one key parser (``audit.keys``: ``hex:``, ``base64:``
    or a passphrase; a malformed or short key is refused with its code); a random per-process key when unset.
    A bare hex string was once decoded as hex here and as text by ``grace serve``: one key must mean one key."""
    if not os.environ.get(DEFAULT_KEY_ENV, "").strip():
        return secrets.token_bytes(32)
    return key_from_env()


def embedded_answerer(corpus_dir: Path, bundle: RuleBundle | None = None,
                      spec: PublishedGoalSpec | None = None) -> Answerer:
    """Hybrid lexical + dense retrieval in process, following the pinned bundle's retrieval rules. With ``spec``,
    a plain folder of documents (no ``corpus.json``, as ``grace compile --corpus`` reads) takes the company name and
    language from the goal spec."""
    from engine.retrieval.factory import build_answerer

    default = plain_folder_manifest(spec) if spec is not None else None
    return build_answerer(corpus_dir, bundle=bundle if bundle is not None else load_verified_bundle(),
                          default_manifest=default)


def plain_folder_manifest(spec: PublishedGoalSpec) -> CorpusManifest:
    """The manifest a corpus folder without ``corpus.json`` is read with: the spec's company and language."""
    from engine.retrieval.corpus import implicit_manifest

    return implicit_manifest(company_name(spec.spec) or spec.spec.id, spec.spec.default_language)


def directory_answerer(
    directory: Path, mapping: Path, *, variant: str = DEFAULT_VARIANT, bundle: RuleBundle | None = None
) -> Answerer:
    """TRACE over a service directory (as ``grace trace ask`` builds it), with the pinned bundle's directory rules.

    A missing directory or mapping file is a deployment problem, not a retrieval one: fail before serving."""
    from engine.directory.answer import DirectoryAnswerer
    from engine.directory.directory_rules import directory_rules
    from engine.directory.retriever import TraceRetriever, parse_variant

    for what, path in (("directory", directory), ("mapping", mapping)):
        if not path.is_file():
            raise InputError(f"{what} file {path} is missing (the demo's data is not available on this machine)",
                             code="demo.data_missing", path=str(path))
    rules = directory_rules(bundle or load_verified_bundle(DEFAULT_RULES_DIR))
    retriever = TraceRetriever.from_files(directory, mapping, rules=rules, variant=parse_variant(variant))
    return DirectoryAnswerer(retriever)


def demo_answerer(demo: Demo, bundle: RuleBundle | None = None) -> Answerer:
    """The answerer the demo's demo.json names: its corpus (embedded RAG) or a service directory (TRACE)."""
    config = demo.answerer
    if config.kind == "directory":
        if config.directory is None or config.mapping is None:  # read_config always sets both for this kind
            raise InputError(f"demo {demo.name}: directory answerer without paths", code="demo.config_invalid")
        return directory_answerer(config.directory, config.mapping, variant=config.variant, bundle=bundle)
    return embedded_answerer(demo.corpus_dir, bundle)


def offline_runtime(
    spec: PublishedGoalSpec,
    *,
    bundle: RuleBundle | None = None,
    answerer: Answerer | None = None,
    store: ConversationStore | None = None,
    audit_key: bytes | None = None,
    roles: RoleChoice | None = None,
) -> TurnRuntime:
    """The offline roles, or what ``roles`` (e.g. ``llm_adapters.wiring.provider_roles``) makes of them."""
    from llm_adapters.offline import OfflineProposer

    bundle = bundle or load_verified_bundle(DEFAULT_RULES_DIR)
    return TurnRuntime.with_roles(
        spec=spec,
        bundle=bundle,
        roles=TurnRoles(proposer=OfflineProposer.from_bundle(bundle), answerer=answerer),
        choose=roles,
        store=store or InMemoryStore(),
        audit_key=audit_key or audit_key_from_env(),
    )


def demo_runtime(
    name: str,
    *,
    bundle: RuleBundle | None = None,
    store: ConversationStore | None = None,
    with_answerer: bool = True,
    audit_key: bytes | None = None,
    roles: RoleChoice | None = None,
) -> tuple[Demo, TurnRuntime]:
    demo = load_demo(name)
    bundle = bundle or load_verified_bundle(DEFAULT_RULES_DIR)
    answerer = demo_answerer(demo, bundle) if with_answerer else None
    return demo, offline_runtime(demo.spec, bundle=bundle, answerer=answerer, store=store, audit_key=audit_key,
                                 roles=roles)
