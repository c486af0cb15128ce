"""Errors of the onboarding benchmark package.

    engine.evaluation.errors.EvaluationError
    └── OnboardingError   a bad option (variants, language, limit) or a service the schema lacks

Codes: ``onboarding.variant_invalid``, ``onboarding.language_unsupported``, ``onboarding.limit_invalid``,
``onboarding.service_unknown``, ``onboarding.no_slots``.
"""

from __future__ import annotations

from engine.evaluation.errors import EvaluationError


class OnboardingError(EvaluationError):
    default_code = "onboarding.invalid"
