"""SCHEMA-NOTES: `combat` (health) and what the resolution names in it."""

from __future__ import annotations

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate.index import SheetIndex


def check_combat_health(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "¿Qué forma necesita tu sistema?": damage kinds need a wound track to land on.

    `combat.damageKinds` is refused when combat's health is a pool (a pool
    cannot remember what kind each point was), and required when it is a
    wound track (SCHEMA-NOTES §11).
    """
    combat = ruleset.combat
    if not isinstance(combat, dict) or not isinstance(combat.get("health"), dict):
        return []
    health = combat["health"]
    kinds = combat.get("damageKinds")
    if "pool" in health and kinds is not None:
        return [
            Problem(
                "combat.damageKinds",
                "a pool cannot remember damage kinds: point "
                "combat.health at a wound track, or use "
                "damageTypes",
            )
        ]
    track = index.tracks.get(str(health.get("track")))
    if track is not None and track.is_wound and kinds is None:
        return [
            Problem(
                "combat.damageKinds",
                "combat.health is a wound track, so damageKinds must say which kind each hit marks",
            )
        ]
    return []


def check_resolution_combat(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Which `combat` goes with which resolution kind.

    000, "dice-highest": "no tiene combate propio, así que se rechaza combat
    junto a él". 000, "symbol-pool": its combats are of kind symbol-pool,
    "cualquier otro tipo de combate se rechaza junto a él". SCHEMA-NOTES §11:
    a dice-pool combat requires a dice-pool resolution (and, by the same
    token, a symbol-pool combat a symbol-pool one).
    """
    combat = ruleset.combat
    if combat is None:
        return []
    kind, fights = ruleset.resolution_kind, combat.get("kind")
    if kind == "dice-highest":
        return [Problem("combat", "a dice-highest ruleset has no combat of its own")]
    if kind == "symbol-pool" and fights != "symbol-pool":
        return [Problem("combat.kind", "a symbol-pool ruleset's combat is of kind symbol-pool")]
    if fights in ("dice-pool", "symbol-pool") and kind != fights:
        return [Problem("combat.kind", f"a {fights} combat needs a {fights} resolution")]
    return []
