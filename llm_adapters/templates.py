"""Versioned prompt templates: ``prompts/<role>.<lang>.md`` with front matter (id, version, role, language).

Body layout::

    <!-- system -->
    instructions ...
    <!-- user -->
    ... {{placeholder}} ...

Rendering is a single pass: a value containing ``{{...}}`` (e.g. visitor text) is never expanded again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from llm_adapters.errors import PromptError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
ROLES = ("propose", "rate_utility", "modulate", "synthesize", "compile")

_FRONT = re.compile(r"\A---\n(?P<head>.*?)\n---\n(?P<body>.*)\Z", re.DOTALL)
_FIELD = re.compile(r"^(?P<key>[a-z_]+):\s*(?P<value>.+?)\s*$", re.MULTILINE)
_SECTION = re.compile(r"^<!-- (system|user) -->\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")


@dataclass(frozen=True)
class PromptTemplate:
    id: str
    version: str
    role: str
    language: str
    system: str
    user: str
    sha256: str  # of the template file, so a record pins the exact wording

    @property
    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER.findall(self.system)) | set(_PLACEHOLDER.findall(self.user))

    def render(self, variables: dict[str, str]) -> list[dict[str, str]]:
        missing = self.placeholders - set(variables)
        if missing:
            raise PromptError(f"prompt {self.id}@{self.version} needs {', '.join(sorted(missing))}")

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: variables[m.group(1)], text)

        return [{"role": "system", "content": fill(self.system)}, {"role": "user", "content": fill(self.user)}]


def parse_template(text: str, source: str) -> PromptTemplate:
    match = _FRONT.match(text.replace("\r\n", "\n"))
    if match is None:
        raise PromptError(f"{source}: missing front matter")
    fields = {m.group("key"): m.group("value") for m in _FIELD.finditer(match.group("head"))}
    for key in ("id", "version", "role", "language"):
        if key not in fields:
            raise PromptError(f"{source}: front matter lacks '{key}'")
    if not _VERSION.match(fields["version"]):
        raise PromptError(f"{source}: version must be MAJOR.MINOR.PATCH")
    parts = _SECTION.split(match.group("body"))
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if set(sections) != {"system", "user"} or not all(sections.values()):
        raise PromptError(f"{source}: needs one non-empty '<!-- system -->' and one '<!-- user -->' section")
    return PromptTemplate(
        id=fields["id"],
        version=fields["version"],
        role=fields["role"],
        language=fields["language"],
        system=sections["system"],
        user=sections["user"],
        sha256="sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


class PromptLibrary:
    """Loads templates on first use; a missing language falls back to ``fallback``."""

    def __init__(self, directory: Path = PROMPTS_DIR, fallback: str = "en") -> None:
        self.directory = directory
        self.fallback = fallback
        self._cache: dict[tuple[str, str], PromptTemplate] = {}

    def get(self, role: str, language: str) -> PromptTemplate:
        key = (role, language)
        if key not in self._cache:
            path = self.directory / f"{role}.{language}.md"
            if not path.is_file():
                if language != self.fallback:
                    return self.get(role, self.fallback)
                raise PromptError(f"no prompt template for role {role} ({path.name})")
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise PromptError(f"{path.name} is not readable UTF-8") from exc
            template = parse_template(text, path.name)
            if (template.role, template.language) != (role, language):
                raise PromptError(f"{path.name}: front matter says {template.role}.{template.language}")
            self._cache[key] = template
        return self._cache[key]
