"""SCHEMA-NOTES §11: what `combat` and `battle` name in the rest of the file.

The shapes of both sections and the rules between their own keys are the
models' (`gmtags.ruleset.combat`); these passes check what needs the sheet or
the resolution: the pool or track `health` names, `defense` as a value that
exists, `damageKinds` against a wound track, the resolution kind a combat goes
with, and the pools and lists `battle` borrows.

The passes read the typed `Ruleset.combat_model` and `battle_model`
(`validate` looks no name up in a part of the file whose shapes are broken).
"""

from __future__ import annotations

from typing import Any

from gmtags.errors import Problem
from gmtags.ruleset.combat import Health
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.refs import check_ref


def _health(health: Health, path: str, index: SheetIndex) -> list[Problem]:
    """§11 `health{pool}|{track}`: the live pool or live track a fight damages exists."""
    if not index.parsed("sheet.live"):
        return []
    if health.pool is not None and health.pool not in index.pools:
        return [Problem(f"{path}.pool", f"names no live pool '{health.pool}'")]
    if health.track is not None and health.track not in index.tracks:
        return [Problem(f"{path}.track", f"names no live track '{health.track}'")]
    return []


def check_combat_refs(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §11 and 002 ("Un combate también puede marcarlo"): what `combat` names.

    `health` is a live pool or a live track of the sheet; `defense` is a value
    reference whose ids exist (§4; it is read when a fight starts, so a live
    read is allowed, 002 "Una lectura viva toma el estado vivo… empieza un
    combate").
    """
    combat = ruleset.combat_model
    if combat is None:
        return []
    problems = _health(combat.health, "combat.health", index)
    return problems + check_ref(combat.defense, "combat.defense", index)


def _named(raw: Any, key: str) -> str | None:
    """`raw[key]` when `raw` is an object holding text there (a key kept as raw JSON)."""
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, str) else None


def check_battle_refs(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """SCHEMA-NOTES §11, `battle`: the pools and lists it lends the Engine's combat exist.

    `health` is a live pool or live track; each `slots` entry's `pool` is a live
    pool. `energy` and `skills` are kept as raw JSON (the notes give no shape);
    where `energy` names a `pool` (`{"pool": "luck"}` in Ember Roads) it is a
    live pool, and where a `skills` entry names a `list` (`{"list": "knacks"}`)
    it is a list of the sheet.
    """
    battle = ruleset.battle_model
    if battle is None:
        return []
    problems = _health(battle.health, "battle.health", index)
    live, lists = index.parsed("sheet.live"), index.parsed("sheet.lists")
    energy = _named(battle.energy, "pool")
    if energy is not None and energy not in index.pools and live:
        problems.append(Problem("battle.energy.pool", f"names no live pool '{energy}'"))
    for place, slot in enumerate(battle.slots or ()):
        if slot.pool not in index.pools and live:
            problems.append(
                Problem(f"battle.slots.{place}.pool", f"names no live pool '{slot.pool}'")
            )
    skills = battle.skills if isinstance(battle.skills, list) else []
    for place, entry in enumerate(skills):
        name = _named(entry, "list")
        if name is not None and name not in index.lists and lists:
            problems.append(Problem(f"battle.skills.{place}.list", f"names no list '{name}'"))
    return problems


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
