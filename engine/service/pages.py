"""Small server-rendered pages: the index, and a demo host page that embeds the widget with one script tag."""

from __future__ import annotations

from html import escape

from fastapi.responses import HTMLResponse

from engine.kernel.goal_models import company_name
from engine.service.catalog import Catalog, ServedGoal

# Pages only load our own scripts and styles; the console is never framed.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
CONSOLE_HEADERS = {
    **PAGE_HEADERS,
    "Content-Security-Policy": _CSP + "; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def html(body: str) -> HTMLResponse:
    return HTMLResponse(body, headers=PAGE_HEADERS)


def _shell(title: str, body: str, lang: str = "en") -> str:
    return (
        f'<!doctype html>\n<html lang="{escape(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="/static/site.css"></head>'
        f"<body>{body}</body></html>"
    )


def index_page(catalog: Catalog) -> str:
    items = []
    for goal in sorted(catalog.goals, key=lambda g: g.published.ref):
        spec = goal.published.spec
        name = goal.aliases[0] if goal.aliases else spec.id
        langs = " · ".join(
            f'<a href="/demo/{escape(name)}?lang={escape(lang)}">{escape(lang.upper())}</a>' for lang in spec.languages
        )
        items.append(
            f"<li><strong>{escape(spec.title)}</strong> <code>{escape(goal.published.ref)}</code> — {langs}</li>"
        )
    body = (
        "<main class='page'><h1>GRACE</h1><p>Goal-oriented, auditable conversations.</p>"
        f"<h2>Widget demos</h2><ul>{''.join(items) or '<li>No goal specs are served.</li>'}</ul>"
        "<h2>Operators</h2><ul><li><a href='/console'>Operator console</a></li>"
        "<li><a href='/docs'>API reference</a> (<a href='/openapi.json'>OpenAPI</a>)</li></ul></main>"
    )
    return _shell("GRACE", body)


# The demo host page speaks the conversation's language (the widget's own texts live in widget.js).
_DEMO_INTRO = {
    "en": "A sample company page. The chat opens from the button in the corner; it is embedded with one script tag:",
    "es": "Una página de empresa de ejemplo. El chat se abre con el botón de la esquina; se inserta con una sola "
          "etiqueta script:",
    "fr": "Une page d'entreprise d'exemple. Le chat s'ouvre avec le bouton dans le coin ; il s'intègre avec une "
          "seule balise script :",
}


def demo_page(goal: ServedGoal, lang: str) -> str:
    spec = goal.published.spec
    name = goal.aliases[0] if goal.aliases else spec.id
    # The one line a company pastes into its site:
    tag = f'<script src="/static/widget.js" data-goal="{escape(name)}" data-lang="{escape(lang)}" defer></script>'
    intro = _DEMO_INTRO.get(lang, _DEMO_INTRO["en"])
    # A company's page carries the company's name; the spec's title describes the goal for operators (and is
    # written in one language, which the Spanish page must not show as its heading).
    heading = company_name(spec) or spec.title
    body = (
        f"<main class='page'><h1>{escape(heading)}</h1>"
        f"<p class='muted'>{escape(intro)}</p>"
        f"<pre><code>{escape(tag)}</code></pre></main>{tag}"
    )
    return _shell(heading, body, lang)
