"""Shared compiler fixtures: the loaded rule files and an offline compiler."""

from __future__ import annotations

import shutil

import pytest

from engine.compiler.compiler_rules import (
    DEFAULT_RULES_DIR,
    CompilerRules,
    GovernanceRules,
    load_compiler_rules,
    load_governance_rules,
)
from engine.compiler.deterministic import DeterministicCompiler
from engine.rules.loader import RuleBundle, load_bundle


@pytest.fixture(scope="session")
def compiler_rules() -> CompilerRules:
    return load_compiler_rules()


@pytest.fixture(scope="session")
def governance_rules() -> GovernanceRules:
    return load_governance_rules()


@pytest.fixture(scope="session")
def compiler(compiler_rules: CompilerRules, governance_rules: GovernanceRules) -> DeterministicCompiler:
    return DeterministicCompiler(compiler_rules, governance_rules)


@pytest.fixture(scope="session")
def draft_bundle(tmp_path_factory: pytest.TempPathFactory) -> RuleBundle:
    """The working tree's rule bundle as an unpublished draft (the rule files may be ahead of publication)."""
    root = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, root, ignore=shutil.ignore_patterns("published"))
    return load_bundle(root, require_published=False)
