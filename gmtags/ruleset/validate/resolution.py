"""000: the resolution's shared keys and what it names on the sheet."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution import (
    CHECK_WORDS,
    Found,
)
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.refs import check_ref


def check_resolution_common(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """The shared resolution keys that name the sheet.

    002, "La penalización de las tiradas": `penaltyFrom` names a wound track;
    an ordinary track has no penalty and is refused. SCHEMA-NOTES §5: a tier
    with a non-zero multiplier needs `proficiency`.
    """
    common = ruleset.resolution_common
    problems: list[Problem] = []
    if common.penalty_from is not None and index.parsed("sheet.live"):
        track = index.tracks.get(common.penalty_from)
        if track is None:
            problems.append(
                Problem("resolution.penaltyFrom", f"names no live track '{common.penalty_from}'")
            )
        elif not track.is_wound:
            problems.append(
                Problem(
                    "resolution.penaltyFrom",
                    f"'{common.penalty_from}' is an ordinary track, which has "
                    "no penalty: name a wound track",
                )
            )
    if common.proficiency is None:
        for position, tier in enumerate(common.proficiency_tiers):
            if tier.multiplier != 0:
                problems.append(
                    Problem(
                        f"resolution.proficiencyTiers.{position}.multiplier",
                        "a multiplying tier needs resolution.proficiency",
                    )
                )
    return problems


def below(base: str, found: Found) -> list[Problem]:
    """Problems found by a model's rules, at their paths below `base`."""
    return [Problem(".".join([base, *map(str, loc)]), message) for loc, message in found]


def invalid(error: ValidationError, base: str) -> list[Problem]:
    """A pydantic error's problems, at their paths below `base`."""
    return below(base, [(tuple(item["loc"]), item["msg"]) for item in error.errors()])


def check_resolution_refs(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """000: what the resolution names on the sheet exists.

    "Gastar para cambiar una tirada": a spend's `pool` is one of
    `live.pools` and "No puede empezar vacía"; a `perCheck` value reads the
    sheet. "Pruebas que tiran a su manera": an override's skills, saves and
    abilities exist and `when` is a sheet value. "target.from: opcional":
    `target.from` is a value reference and a stance's skills exist.
    """
    rules = ruleset.resolution_rules
    problems: list[Problem] = []
    for position, entry in enumerate(rules.spend or []):
        at = f"resolution.spend.{position}"
        pool = index.pools.get(entry.pool)
        if pool is None and index.parsed("sheet.live"):
            problems.append(Problem(f"{at}.pool", f"names no live pool '{entry.pool}'"))
        elif pool is not None and pool.starts_empty:
            problems.append(
                Problem(
                    f"{at}.pool",
                    f"pool '{entry.pool}' starts empty: there would be nothing to spend "
                    "when play begins",
                )
            )
        if isinstance(entry.per_check, RulesetValueRef):
            problems += check_ref(entry.per_check, f"{at}.perCheck", index)
    known: dict[str, Mapping[str, object]] = {
        "skills": index.skills,
        "saves": index.saves,
        "abilities": index.abilities,
    }
    for position, override in enumerate(rules.overrides):
        at = f"resolution.overrides.{position}"
        for key, item, name in override.checks():
            if name not in known[key] and index.parsed(f"sheet.{key}"):
                problems.append(
                    Problem(f"{at}.{key}.{item}", f"names no {CHECK_WORDS[key]} '{name}'")
                )
        if override.when is not None:
            problems += check_ref(override.when, f"{at}.when", index)
    for loc, ref in rules.sheet_refs():
        problems += check_ref(ref, ".".join(["resolution", *map(str, loc)]), index)
    for loc, name in rules.skill_refs():
        if name not in index.skills and index.parsed("sheet.skills"):
            problems.append(
                Problem(".".join(["resolution", *map(str, loc)]), f"names no skill '{name}'")
            )
    return problems
