"""Shared fixtures: the project's rule bundle and a small four-objective goal spec with no vocabularies."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import settings

from engine.goals.publication import spec_hash
from engine.kernel.goal_models import Criterion, GoalSpec, Objective, PublishedGoalSpec
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle

# Deterministic property tests (the same examples on every run and machine) with no per-example wall-clock deadline:
# a loaded CI machine or a second xdist worker must not turn a slow example into a failure.
settings.register_profile("grace", derandomize=True, deadline=None, database=None, print_blob=True)
settings.load_profile("grace")


def pytest_configure(config: pytest.Config) -> None:
    from audit.logging import configure_logging
    from engine.service.native_threads import limit_native_threads
    from tests.support import no_network

    # One OpenMP thread per test process, as `grace serve` runs: the embedder's threads spin at barriers while the
    # other xdist worker has the second core (the demo corpora embed in 9 s of CPU instead of 16 s; the vectors
    # are bit-identical). Set before the embedder's library loads, which is at its first use.
    limit_native_threads(os.environ)
    no_network.install()
    configure_logging(redaction_key=None, level="warning")


# Modules that start servers or worker processes, or run a benchmark end to end (30-90 s each on 2 cores): they run
# in `make test`, not in the edit loop (`make test-fast` deselects `slow`). One list, so the tier is visible here.
PROCESS_TIER = frozenset({
    "tests/retrieval/test_rag_bench.py",
    "tests/service/test_load_bench.py",
    "tests/service/test_service_workers.py",
    "tests/storage/test_storage_concurrency.py",
})
# The longest modules, longest first (make test --durations on 2 cores): each worker starts on one of these, and the
# short modules fill the end, so that no worker is left alone with a long module while the other idles.
HEAVIEST_FIRST = (
    "tests/llm_adapters/test_live_llamacpp.py",
    "tests/service/test_crash.py",
    "tests/audit/test_tamper.py",
    "tests/evaluation/test_adversarial.py",
    "tests/service/test_service_workers.py",
    "tests/service/test_load_bench.py",
    "tests/browser/test_demo.py",
    "tests/differential/test_differential.py",
    "tests/browser/test_widget.py",
    "tests/retrieval/test_answerer.py",
    "tests/retrieval/test_rag_bench.py",
    "tests/service/test_service_hardening.py",
    "tests/core/test_fuzz.py",
)
_ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    relative = {item.path: item.path.resolve().relative_to(_ROOT).as_posix() for item in items}
    for item in items:
        if relative[item.path] in PROCESS_TIER:
            item.add_marker(pytest.mark.slow)
    # The heaviest modules first, then the other modules with slow, browser or live-LLM tests (servers, sweeps,
    # benchmarks, Chromium, llama.cpp), then the rest: xdist (--dist loadfile, with --no-loadscope-reorder in
    # pyproject.toml, else it reorders by test count) hands out whole modules in this order.
    long_modules = {item.path for item in items
                    if any(item.get_closest_marker(m) for m in ("slow", "browser", "llm"))}
    rank = {name: index for index, name in enumerate(HEAVIEST_FIRST)}

    def order(item: pytest.Item) -> tuple[int, int]:
        name = relative[item.path]
        if name in rank:
            return 0, rank[name]
        return (1 if item.path in long_modules else 2), 0

    items.sort(key=order)  # stable: order inside a module is kept


@pytest.fixture(scope="session")
def shared_embeddings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's embedding cache, shared by workers and server processes (see tests/support/embeddings.py)."""
    from tests.support.embeddings import shared_cache

    return shared_cache(tmp_path_factory)


@pytest.fixture(autouse=True)
def _structlog_config_restored() -> Iterator[None]:
    """Whatever a test (or the CLI it runs) does to structlog's global configuration ends with the test, so no log
    line of one test lands in another's captured output, whatever order or worker runs them."""
    import structlog

    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def make_spec(weights: tuple[str, ...] = ("0.35", "0.25", "0.20", "0.20")) -> GoalSpec:
    kinds = [
        ("budget", "money", {"currency": "EUR", "min_amount": 10000}),
        ("location", "place", {}),
        ("notes", "free_text", {}),
        ("contact", "contact", {"channels": ["email", "phone"], "default_region": "ES"}),
    ]
    objectives = [
        Objective(
            id=oid,
            name=oid.title(),
            questions={"en": f"What is your {oid}?", "es": f"¿Cuál es su {oid}?"},
            criterion=Criterion(kind=kind, description=f"visitor states their {oid}", params=params),
            weight=Decimal(w),
            order=i + 1,
        )
        for i, ((oid, kind, params), w) in enumerate(zip(kinds, weights, strict=True))
    ]
    return GoalSpec(id="test-spec", title="Test", default_language="en", languages=["en", "es"],
                    objectives=objectives)


def publish(spec: GoalSpec, version: int = 1) -> PublishedGoalSpec:
    return PublishedGoalSpec(spec=spec, version=version, content_hash=spec_hash(spec), approved_by="tester",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


CORE_FILES = ("bundle", "policy", "acceptance", "criteria", "runtime", "governance", "provenance")


def copy_core_rules(target: Path) -> Path:
    """A bundle holding only the core rule files (and their schemas), for tests of the decision layer."""
    (target / "schemas").mkdir(parents=True)
    for name in CORE_FILES:
        source = DEFAULT_RULES_DIR / f"{name}.json"
        if source.exists():
            shutil.copy(source, target / f"{name}.json")
            shutil.copy(DEFAULT_RULES_DIR / "schemas" / f"{name}.schema.json", target / "schemas")
    return target


@pytest.fixture(scope="session")
def core_rules_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_core_rules(tmp_path_factory.mktemp("rules"))


@pytest.fixture(scope="session")
def bundle(core_rules_dir: Path) -> RuleBundle:
    return load_bundle(core_rules_dir, require_published=False)


@pytest.fixture(scope="session")
def published_spec() -> PublishedGoalSpec:
    return publish(make_spec())
