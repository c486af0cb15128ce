"""Business Goal Compiler (paper Algorithm 1): manager intent -> candidate goal spec, then governance checks."""

from engine.compiler.governance import check_governance
from engine.compiler.model import CompileInput, CompileOutcome, Draft, DraftObjective, GoalCompiler

__all__ = [
    "CompileInput",
    "CompileOutcome",
    "Draft",
    "DraftObjective",
    "GoalCompiler",
    "check_governance",
]
