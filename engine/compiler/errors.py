"""Errors of the goal compiler::

    engine.errors.InputError
    ├── CompileError          the intent cannot be compiled (empty, too long, nothing recognised, ...)
    └── GoalSpecError         the candidate asks for a prohibited data category (goalspec.prohibited_category)
    engine.errors.RuleBundleError
    └── CompilerRulesError    rules/compiler.json or rules/governance.json is unusable
"""

from __future__ import annotations

from engine.errors import InputError, RuleBundleError


class CompileError(InputError):
    default_code = "compile.failed"


class CompilerRulesError(RuleBundleError):
    default_code = "rules.compiler_invalid"


PROHIBITED_CATEGORY = "goalspec.prohibited_category"
