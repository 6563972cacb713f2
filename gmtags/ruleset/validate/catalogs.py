"""000, "Un amuleto…" and 004: catalog entries' `mechanics.check` and contextual mechanics."""

from __future__ import annotations

from pydantic import ValidationError

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import (
    MechanicsCheck,
)
from gmtags.ruleset.sheet import (
    EntryContextual,
)
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.resolution import below, invalid
from gmtags.ruleset.validate.sheet import contextual_effect


def check_catalog_checks(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """000, "Un amuleto que cambia una tirada" (SCHEMA-NOTES §9): a catalog entry's check.

    "Solo dice-pool puede aplicarlo; un conjunto dice-sum con mechanics.check
    se rechaza al importar": on any other kind it is refused. On a dice pool
    it is strict, does at least one thing, and its faces fit the pool
    (`DicePool.check_effect_rules`). Catalogs stay JSON objects; entries held
    in an asset file are not read here.
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, catalog in enumerate(ruleset.catalogs or []):
        entries = catalog.get("entries")
        for item, entry in enumerate(entries if isinstance(entries, list) else []):
            mechanics = entry.get("mechanics") if isinstance(entry, dict) else None
            check = mechanics.get("check") if isinstance(mechanics, dict) else None
            if check is None:
                continue
            at = f"catalogs.{position}.entries.{item}.mechanics.check"
            if not rules.charms:
                problems.append(
                    Problem(
                        at,
                        f"only a dice-pool ruleset applies mechanics.check; this one is "
                        f"{rules.kind_name}",
                    )
                )
                continue
            try:
                effect = MechanicsCheck.model_validate(check)
            except ValidationError as error:
                problems += invalid(error, at)
                continue
            problems += below(at, rules.check_effect_rules(effect))
    return problems


def check_catalog_contextual(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, "Una entrada de catálogo puede llevar mechanics.contextual": its shape and names.

    Strict like a list's contextual: the skills and saves it is restricted to
    exist, its `check` and `cost` follow the list rules (pool effects need a
    dice pool, `cancel: false` a `resolution.cancel`, a cost a pool, pool
    group or simple track). Entries held in an asset file are not read here.
    """
    problems: list[Problem] = []
    for position, catalog in enumerate(ruleset.catalogs or []):
        entries = catalog.get("entries")
        for item, entry in enumerate(entries if isinstance(entries, list) else []):
            mechanics = entry.get("mechanics") if isinstance(entry, dict) else None
            raw = mechanics.get("contextual") if isinstance(mechanics, dict) else None
            if raw is None:
                continue
            at = f"catalogs.{position}.entries.{item}.mechanics.contextual"
            try:
                contextual = EntryContextual.model_validate(raw)
            except ValidationError as error:
                problems += invalid(error, at)
                continue
            for key, known in (("skills", index.skills), ("saves", index.saves)):
                for place, name in enumerate(getattr(contextual, key) or []):
                    if name not in known:
                        problems.append(
                            Problem(f"{at}.{key}.{place}", f"names no {key[:-1]} '{name}'")
                        )
            problems += contextual_effect(contextual.check, contextual.cost, at, index)
    return problems
