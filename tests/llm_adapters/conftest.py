"""Fixtures for the LLM adapter tests (see llm_wire_harness for the offline wire server)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from engine.goals.publication import spec_hash
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec
from llm_adapters.adapter import LLMAdapter
from llm_adapters.factory import adapter_from_settings
from tests.llm_adapters.llm_wire_harness import FAKE_KEY, WireServer, settings_for


@pytest.fixture
def make_adapter() -> Iterator[Callable[..., tuple[LLMAdapter, WireServer, list[float]]]]:
    """make_adapter(provider_name, fixtures, **setting_overrides) -> (adapter, server, sleeps)."""

    def build(provider: str, names: list[str], **overrides: Any) -> tuple[LLMAdapter, WireServer, list[float]]:
        wire = "mistral" if provider == "mistral" else "openai"
        server = WireServer(wire, names)
        sleeps: list[float] = []
        env = {"MISTRAL_API_KEY": FAKE_KEY, "GRACE_LLM_API_KEY": FAKE_KEY}
        adapter = adapter_from_settings(settings_for(provider, **overrides), http_client=server.client(),
                                        environ=env, sleep=sleeps.append)
        return adapter, server, sleeps

    yield build


def _objective(oid: str, name: str, kind: CriterionKind, question_en: str, question_es: str, weight: str,
               order: int, params: dict[str, Any] | None = None) -> Objective:
    return Objective(id=oid, name=name, questions={"en": question_en, "es": question_es},
                     criterion=Criterion(kind=kind, description=f"The visitor gives their {name.lower()}.",
                                         params=params or {}),
                     weight=Decimal(weight), order=order)


@pytest.fixture
def spec() -> PublishedGoalSpec:
    goal = GoalSpec(
        id="realestate-test",
        title="Real-estate test spec",
        default_language="en",
        languages=["en", "es"],
        objectives=[
            _objective("budget", "Budget", CriterionKind.MONEY,
                       "What budget range do you have in mind for your new home?",
                       "¿Qué rango de presupuesto tiene en mente para su nueva vivienda?", "0.35", 1),
            _objective("location", "Preferred location", CriterionKind.PLACE,
                       "In which area or city would you prefer the property to be located?",
                       "¿En qué zona o ciudad preferiría la vivienda?", "0.25", 2),
            _objective("requirements", "Essential requirements", CriterionKind.FREE_TEXT,
                       "Which property characteristics or requirements are essential to you?",
                       "¿Qué características o requisitos son imprescindibles para usted?", "0.2", 3),
            _objective("contact", "Contact for visit", CriterionKind.CONTACT,
                       "Could you share an email address or telephone number so that we can arrange a viewing?",
                       "¿Podría facilitarnos un correo electrónico o un teléfono para organizar una visita?", "0.2", 4),
        ],
    )
    return PublishedGoalSpec(spec=goal, version=1, content_hash=spec_hash(goal), approved_by="test",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "llm: needs an OpenAI-compatible LLM server (GRACE_TEST_LLM_BASE_URL)")
