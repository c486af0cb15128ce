"""Value types of the retrieval package: passages of the company corpus and their scored hits.

Every passage is company evidence (paper: D_t ⊂ E_c). Nothing in this package models visitor text.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# Record fields keep JSON scalar types (or lists of scalars) so that filters and Weaviate properties are typed.
FieldValue = str | int | float | bool | list[str] | list[int] | list[float]


class Passage(BaseModel):
    """One retrievable unit: a Markdown section / Q&A, or one CSV/JSON record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)  # stable: "<relative path>#<section slug or record id>"
    source: str = Field(min_length=1)  # path relative to the corpus folder
    title: str
    text: str = Field(min_length=1)  # body only; the title is indexed beside it
    language: str = Field(min_length=2)
    kind: str = "section"  # "section" (Markdown, HTML, PDF) or "record" (CSV/JSON)
    # What a person would recognise in a citation: "<page or document title> › <section heading>" (never an id).
    label: str = ""
    fields: dict[str, FieldValue] = Field(default_factory=dict)

    def indexed_text(self) -> str:
        """What lexical and dense indexes see: title and body together (Q&A headings carry the question)."""
        return f"{self.title}\n{self.text}" if self.title else self.text


class ScoredPassage(BaseModel):
    """A retrieval hit. ``score`` orders hits (fused); the component scores feed the grounding gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passage: Passage
    score: float
    rank: int = Field(ge=1)
    lexical_score: float = 0.0
    dense_score: float = 0.0  # cosine similarity of query and passage embeddings
    title_score: float = 0.0  # cosine similarity of query and the passage title embedded as a query (0: no title)
    # How far this passage stands out for this query: z-score of its dense (body) and title similarity among all
    # corpus passages of the same language (0 when the backend cannot tell). Language-shift free across languages.
    dense_standing: float = 0.0
    title_standing: float = 0.0
