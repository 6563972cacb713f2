"""A small ruleset for the pool and spend tests: the point-based sample's resolution with a
sheet of 004's spend examples (GURPS ST and Basic Speed, CoC Accounting and Credit Rating,
a Genesys talent rank, OSE's Intelligence and Wisdom, a Merit, a flaw) and a builder made of
the pools and steps a test gives."""

from __future__ import annotations

import json
from typing import Any

from gmtags import BuildResult, Ruleset, build_character, load_ruleset
from tests.builder.samples import points


def number(name: str, low: float, high: float, default: float, **more: Any) -> dict[str, Any]:
    return {"id": name, "label": name.title(), "type": "number", "min": low, "max": high} | {
        "default": default,
        **more,
    }


def ability(name: str, low: int, high: int, default: int) -> dict[str, Any]:
    return {"id": name, "label": name.upper(), "min": low, "max": high, "default": default}


SHEET_FIELDS = [
    number("accounting_value", 0, 99, 5),
    number("credit_rating", 0, 99, 0),
    number("credit_floor", 0, 99, 10),
    number("basic_speed", 1, 10, 5, integer=False),
    number("talent", 0, 5, 2),
    number("merit", 0, 5, 0),
    number("flaw", 0, 10, 0),
    number("affinity", 0, 1, 0),
    number("noble", 0, 1, 0),
    number("guns", 0, 20, 0),
    number("budget", 0, 200_000, 30),
]


def ruleset(steps: list[dict[str, Any]], pools: list[dict[str, Any]]) -> Ruleset:
    """The sample with these builder steps and pools (module doc)."""
    data = points()
    sheet = data["sheet"]
    sheet["abilities"] = [
        ability("st", 1, 20, 10),
        ability("dx", 1, 20, 10),
        ability("int", 3, 18, 10),
        ability("wis", 3, 18, 10),
    ]
    sheet["skills"] = [{"id": "athletics", "label": "Athletics", "ability": "dx"}]
    sheet["saves"] = [{"id": "will", "label": "Will", "ability": "wis"}]
    sheet["fields"] = SHEET_FIELDS
    sheet["derived"] = []
    sheet["builder"] = {
        "pools": pools,
        "steps": steps,
        "ratingTiers": [{"target": {"skill": "athletics"}, "tiers": ["none", "trained", "expert"]}],
    }
    data.pop("catalogs", None)
    if any(step["kind"] == "catalog" for step in steps):
        data["catalogs"] = [GIFTS]
        sheet["lists"] = [GIFT_LIST]
    else:
        sheet["lists"] = []
    return load_ruleset(data)


GIFT_LIST = {
    "id": "gifts",
    "label": "Gifts",
    "maxItems": 10,
    "columns": [{"id": "name", "label": "Name", "type": "text", "maxLength": 80}],
}


def gift(name: str, tier: int) -> dict[str, Any]:
    return {
        "id": name,
        "label": name.title(),
        "filters": {"tier": tier},
        "rows": [{"list": "gifts", "values": {"name": name}}],
    }


GIFTS = {
    "id": "gifts",
    "label": "Gifts",
    "feeds": ["gifts"],
    "filters": [{"id": "tier", "label": "Tier", "type": "number"}],
    "entries": [gift("ember", 1), gift("river", 2), gift("stone", 3), gift("taint", -2)],
}


def pool(name: str, budget: float | dict[str, Any], **more: Any) -> dict[str, Any]:
    """A pool of `budget` points (a number is a constant reference)."""
    ref = budget if isinstance(budget, dict) else {"const": budget}
    return {"id": name, "label": name.title(), "budget": ref, **more}


def spend(*offers: dict[str, Any], step: str = "buy", pool_id: str = "points") -> dict[str, Any]:
    """A spend step of these offers."""
    return {"id": step, "label": step.title(), "kind": "spend", "pool": pool_id} | {
        "offers": list(offers)
    }


def offer(
    name: str, target: dict[str, str], low: float, high: float, **more: Any
) -> dict[str, Any]:
    return {"id": name, "label": name.title(), "target": target, "min": low, "max": high, **more}


def build(
    rules: Ruleset,
    buys: dict[str, int] | None = None,
    card: dict[str, Any] | None = None,
    step: str = "buy",
    **steps: dict[str, Any],
) -> BuildResult:
    """Build with `buys` answered to `step` (and other steps' answers)."""
    answers: dict[str, Any] = {"v": 1, "seed": 7, "steps": dict(steps)}
    if card is not None and "builder" not in card:
        answers["described"] = False  # a hand-written card, not a described character (H1)
    if buys is not None:
        answers["steps"][step] = {"buys": buys}
    return build_character(rules, answers, card)


def lines(result: BuildResult, name: str) -> list[dict[str, Any]]:
    """The ledger lines of one offer."""
    return [line for line in result.ledger if line["offer"] == name]


def entry(result: BuildResult, step: str = "buy") -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step)


def same(one: BuildResult, other: BuildResult) -> bool:
    """Byte for byte the same card."""
    return json.dumps(one.card, sort_keys=False) == json.dumps(other.card, sort_keys=False)
