"""The builder page's HTML (SPEC §11, BUILDER §2.7): a skeleton the script fills in.

Everything the script needs from the ruleset travels in the page as one
`<script type="application/json" id="gb-data">` (no extra endpoint): the
builder model as the ruleset file spells it, each catalog's entries (id,
label, summary), the sheet's abilities, skills, saves, fields and lists with
their labels, the training tiers and how a score becomes a modifier, and the
card (or party sheet) being edited with its saved answers and, for the party
sheet, the revision it was opened on. Every text in it is data for the script,
which writes it with `textContent` only: a label or summary from a ruleset
file is never markup. The JSON is written with `<`, `>` and `&` escaped, so
no text in it can close the script element.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel

from gmtags.jsonfile import dumps
from gmtags.ruleset.model import Ruleset
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import Snapshot

FIELD_KEYS = (
    "id",
    "label",
    "type",
    "min",
    "max",
    "values",
    "valueLabels",
    "default",
    "required",
    "maxLength",
)


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _keep(model: BaseModel, keys: Iterable[str]) -> dict[str, Any]:
    data = _dump(model)
    return {key: data[key] for key in keys if key in data}


def _fields(fields: Iterable[BaseModel]) -> list[dict[str, Any]]:
    return [_keep(f, FIELD_KEYS) for f in fields]


def _lists(lists: Iterable[Any]) -> list[dict[str, Any]]:
    return [
        {"id": item.id, "label": item.label, "columns": _fields(item.columns)} for item in lists
    ]


def page_data(
    ruleset: Ruleset,
    snapshot: Snapshot | None,
    chat: str | None,
    name: str | None,
    party: bool,
) -> dict[str, Any]:
    """What the script reads from the page (module doc); the model is the builder's."""
    state = snapshot.to_json_dict() if snapshot is not None else {}
    card: dict[str, Any] | None = None
    if party:
        assert ruleset.party is not None and ruleset.party.builder_model is not None
        model = ruleset.party.builder_model
        sheet: dict[str, Any] = {
            "label": ruleset.party.label,
            "abilities": [],
            "skills": [],
            "saves": [],
            "fields": _fields(ruleset.party.fields),
            "lists": _lists(ruleset.party.lists),
        }
        stored = state.get("gamePartySheet")
        card = dict(stored) if isinstance(stored, dict) else None
    else:
        assert ruleset.sheet.builder_model is not None
        model = ruleset.sheet.builder_model
        sheet = {
            "abilities": [
                {
                    **_keep(a, ("id", "label", "short", "min", "max", "default")),
                    "computed": a.value is not None,
                }
                for a in ruleset.sheet.abilities
            ],
            "skills": [_keep(s, ("id", "label", "ability")) for s in ruleset.sheet.skills],
            "saves": [_keep(s, ("id", "label", "ability")) for s in ruleset.sheet.saves],
            "fields": _fields(ruleset.sheet.fields),
            "lists": _lists(ruleset.sheet.lists),
        }
        if name:
            key = normalize_name(name)
            cards = state.get("gameCharacterCards") or {}
            found = next(
                ((have, c) for have, c in cards.items() if normalize_name(have) == key), None
            )
            if found is not None:
                name, card = found[0], dict(found[1])
    record = (card or {}).get("builder")
    answers = record.get("answers") if isinstance(record, dict) else None
    common = ruleset.resolution_common
    return {
        "chat": chat,
        "name": name or "",
        "party": party,
        "revision": int(state.get("gamePartySheetRevision") or 0),
        "members": sorted(state.get("gameCharacterCards") or {}),
        "card": card,
        "answers": answers if isinstance(answers, dict) else {"v": 1},
        "builder": _dump(model),
        "catalogs": [
            {
                "id": catalog.id,
                "label": catalog.label,
                "entries": [_keep(e, ("id", "label", "summary")) for e in catalog.entries or ()],
            }
            for catalog in ruleset.catalog_models
        ],
        "sheet": sheet,
        "tiers": [_keep(t, ("id", "label")) for t in common.proficiency_tiers],
        "modifier": _dump(common.ability_modifier),
        "urls": {
            "build": "/gmtags/api/builder/build",
            "save": "/gmtags/api/builder/save",
            "chat": f"/gmtags/chats/{quote(chat, safe='')}" if chat else None,
        },
    }


def script_json(data: Any) -> str:
    """`data` as JSON that can stand inside a `<script>` element (module doc)."""
    text = dumps(data)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render(
    ruleset: Ruleset, snapshot: Snapshot | None, chat: str | None, name: str | None, party: bool
) -> tuple[int, str]:
    """The page's status and HTML: 404 with a sentence when the ruleset cannot build it."""
    what = "party sheet" if party else "character"
    if party and (ruleset.party is None or ruleset.party.builder_model is None):
        return 404, _shell(
            ruleset,
            "No party builder",
            "<p>The served ruleset has no party sheet builder (<code>party.builder</code>).</p>",
        )
    if not party and ruleset.sheet.builder_model is None:
        return 404, _shell(
            ruleset,
            "No character builder",
            "<p>The served ruleset has no character builder (<code>sheet.builder</code>).</p>",
        )
    data = page_data(ruleset, snapshot, chat, name, party)
    chat_line = (
        f'<a href="{html.escape(data["urls"]["chat"])}">chat {html.escape(chat)}</a>'
        if chat
        else "no chat: open this page with <code>?chat=&lt;chat id&gt;</code> to save"
    )
    body = BODY.format(what=what, chat_line=chat_line, data=script_json(data))
    return 200, _shell(ruleset, f"Build a {what}", body)


def _shell(ruleset: Ruleset, title: str, body: str) -> str:
    return SHELL.format(title=html.escape(title), ruleset=html.escape(ruleset.name), body=body)


SHELL = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{title} · {ruleset} · gmtags</title>
<link rel="stylesheet" href="/gmtags/static/base.css">
<link rel="stylesheet" href="/gmtags/static/builder/builder.css">
</head>
<body class="gb-page">
<header class="site gb-header">
<a class="brand" href="/gmtags/">gmtags</a>
<nav aria-label="gmtags pages"><a href="/gmtags/">Chats</a></nav>
</header>
<main id="gb" class="gb">
<h1>{title} <span class="gb-ruleset">{ruleset}</span></h1>
{body}
</main>
</body>
</html>
"""

BODY = """<p class="gb-chat">{chat_line}</p>
<noscript><p>The builder runs in the page: it needs JavaScript.</p></noscript>
<p id="gb-announce" class="gb-sr" role="status"></p>
<nav class="gb-strip" aria-label="Steps">
<ol id="gb-steps" aria-live="polite" aria-relevant="all"></ol>
</nav>
<div class="gb-views" role="tablist" aria-label="View">
<button type="button" role="tab" id="gb-tab-guided" aria-controls="gb-guided"
 aria-selected="true">Guided</button>
<button type="button" role="tab" id="gb-tab-all" aria-controls="gb-all" aria-selected="false"
 tabindex="-1">All fields</button>
</div>
<div class="gb-columns">
<div class="gb-main">
<section id="gb-guided" role="tabpanel" aria-labelledby="gb-tab-guided" class="gb-panel">
<div id="gb-body"></div>
</section>
<section id="gb-all" role="tabpanel" aria-labelledby="gb-tab-all" class="gb-panel" hidden>
</section>
<div class="gb-nav">
<button type="button" id="gb-back">Back</button>
<button type="button" id="gb-next">Next</button>
<span class="gb-spacer"></span>
<button type="button" id="gb-undo">Undo</button>
<button type="button" id="gb-redo">Redo</button>
</div>
<form id="gb-save" class="gb-save">
<label id="gb-name-label">Name
<input id="gb-name" name="name" autocomplete="off" maxlength="100"></label>
<button type="submit" id="gb-save-button">Save</button>
<span id="gb-revision" class="gb-note"></span>
<p id="gb-status" role="status" aria-live="polite"></p>
<div id="gb-latest" hidden></div>
</form>
</div>
<aside id="gb-character" class="gb-character" aria-live="polite"
 aria-label="The {what} so far"></aside>
</div>
<script type="application/json" id="gb-data">{data}</script>
<script src="/gmtags/static/builder/builder-view.js" defer></script>
<script src="/gmtags/static/builder/builder.js" defer></script>
"""
