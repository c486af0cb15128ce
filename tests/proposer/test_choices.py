"""Features and enumerations: counts, negation, questions about features, service vs facility (paper B02)."""

from __future__ import annotations

import pytest

from tests.proposer.helpers import accepted_value, propose, summary


@pytest.mark.parametrize(("text", "value"), [
    ("I need three bedrooms, two bathrooms, and parking.", "bedrooms=3; bathrooms=2; parking"),
    ("I want a three-bedroom apartment in Mojácar.", "bedrooms=3"),
    ("I need four bedrooms, parking, and outdoor space.", "bedrooms=4; parking; outdoor_space"),
    ("Necesito dos dormitorios y ascensor.", "bedrooms=2; lift"),
    ("Busco casa con tres habitaciones y piscina.", "bedrooms=3; pool"),
    ("I do not need parking. What I do need is three bedrooms and two bathrooms.", "bedrooms=3; bathrooms=2"),
    ("No pool needed, but we do need a garage.", "garage"),
    ("The garden is not important, but I need a pool.", "pool"),
    ("Two bedrooms and a terrace are essential", "bedrooms=2; terrace"),
])
def test_requirements(text: str, value: str) -> None:
    commands = [c for c in propose("re", text) if c.objective == "requirements"]  # type: ignore[union-attr]
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]
    assert accepted_value("re", commands[0])


@pytest.mark.parametrize("text", [
    "Do you have houses with a swimming pool?",
    "I don't need a garage or a pool.",
    "No necesito garaje ni piscina.",
    "Parking would be nice but it's not essential.",
    "My neighbour's house has a huge pool.",
    "I want to buy in Mojácar, near the beach.",
])
def test_not_requirements(text: str) -> None:
    assert "complete:requirements" not in summary("re", text)


@pytest.mark.parametrize(("text", "expected"), [
    ("Busco un servicio de limpieza general de oficinas.", {"complete:service_type": "general_cleaning"}),
    ("El tipo de instalación que necesita el servicio es una oficina.", {"complete:client_type": "office"}),
    ("I'm interested in office cleaning.", {"complete:service_type": "general_cleaning"}),
    ("The facility type is an office ubicada en Almería.",
     {"complete:client_type": "office", "complete:location": "Almería"}),
    ("Busco un servicio de limpieza y tratamiento del suelo de mármol del portal.",
     {"complete:service_type": "marble_treatment"}),
    ("No es una oficina, es un hotel.", {"complete:client_type": "hotel"}),
    ("¿Hacéis desinfección de oficinas?", {}),
])
def test_cleaning_enumerations(text: str, expected: dict[str, str]) -> None:
    assert summary("cl", text) == expected


def test_all_four_cleaning_objectives_in_one_message() -> None:
    text = ("El tipo de instalación es una oficina situada en Granada, busco un servicio de limpieza general "
            "de oficinas y mi correo electrónico de contacto es balanced.b03@example.com.")
    result = summary("cl", text)
    assert result == {"complete:client_type": "office", "complete:location": "Granada",
                      "complete:service_type": "general_cleaning", "complete:contact": "balanced.b03@example.com"}
    assert all(accepted_value("cl", c) for c in propose("cl", text))
