"""Shared compiler fixtures: the loaded rule files and an offline compiler."""

from __future__ import annotations

import pytest

from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.rules import CompilerRules, GovernanceRules, load_compiler_rules, load_governance_rules


@pytest.fixture(scope="session")
def compiler_rules() -> CompilerRules:
    return load_compiler_rules()


@pytest.fixture(scope="session")
def governance_rules() -> GovernanceRules:
    return load_governance_rules()


@pytest.fixture(scope="session")
def compiler(compiler_rules: CompilerRules, governance_rules: GovernanceRules) -> DeterministicCompiler:
    return DeterministicCompiler(compiler_rules, governance_rules)
