"""Quick replies: the listed options of the objective a turn asks about, as the visitor's language names them."""

from __future__ import annotations

import re
from typing import Any

from engine.kernel.arc_values import option_label
from engine.kernel.company_data import criterion_vocabulary
from engine.kernel.goal_models import GoalSpec
from engine.rules.loader import RuleBundle

_ASK = re.compile(r"^ASK\((.+)\)$")
_KINDS = ("enumeration", "features")
MAX_CHOICES = 12  # presentation limit: more than this is a list to read, not buttons to tap


def quick_replies(spec: GoalSpec, response: dict[str, Any], language: str, bundle: RuleBundle) -> list[str]:
    match = _ASK.match(str(response.get("action") or ""))
    if match is None or not response.get("question"):
        return []
    objective = next((o for o in spec.objectives if o.id == match.group(1)), None)
    if objective is None or objective.criterion.kind.value not in _KINDS:
        return []
    vocabulary = criterion_vocabulary(objective.criterion, spec, bundle)
    if vocabulary is None or len(vocabulary.options) > MAX_CHOICES:
        return []
    return [option_label(vocabulary, option, language, spec.default_language) for option in vocabulary.options]
