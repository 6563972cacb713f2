"""002, "Descansos": rests and their restore steps."""

from __future__ import annotations

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.rests import RestoreStep
from gmtags.ruleset.sheet import (
    EnumColumn,
)
from gmtags.ruleset.validate.index import SheetIndex


def check_rests(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Descansos": every step's target exists and what it sets is something it holds.

    `listPools` names a list with pools, and `recharge` values of its
    rechargeColumn; `kind` narrows a wound track to one of its kinds; a state
    step sets "default" or one of the state's values; `clear` names live text
    and conditions that exist.
    """
    live = ruleset.sheet.live
    texts = {text.id for text in live.text}
    conditions = {condition.id for condition in live.conditions}
    problems: list[Problem] = []
    for position, rest in enumerate(ruleset.rests):
        path = f"rests.{position}"
        for item, step in enumerate(rest.restore):
            problems += _restore_step(step, f"{path}.restore.{item}", index)
        for item, name in enumerate(rest.clear.text):
            if name not in texts:
                problems.append(
                    Problem(f"{path}.clear.text.{item}", f"names no live text '{name}'")
                )
        if rest.clear.conditions != "all":
            for item, name in enumerate(rest.clear.conditions):
                if name not in conditions:
                    problems.append(
                        Problem(f"{path}.clear.conditions.{item}", f"names no condition '{name}'")
                    )
    return problems


def _restore_step(step: RestoreStep, path: str, index: SheetIndex) -> list[Problem]:
    key, name = step.target
    at = f"{path}.{key}"
    if key == "pool" and name not in index.pools:
        return [Problem(at, f"names no live pool '{name}'")]
    if key == "poolGroup" and name not in index.groups:
        return [Problem(at, f"names no pool group '{name}'")]
    if key == "listPools":
        sheet_list = index.lists.get(name)
        if sheet_list is None or sheet_list.pools is None:
            return [Problem(at, f"names no list with pools '{name}'")]
        if step.recharge is None:
            return []
        recharge = sheet_list.column(sheet_list.pools.recharge_column or "")
        if not isinstance(recharge, EnumColumn):
            return [Problem(f"{path}.recharge", f"list '{name}' has no rechargeColumn")]
        return [
            Problem(
                f"{path}.recharge.{item}", f"'{value}' is not a value of column '{recharge.id}'"
            )
            for item, value in enumerate(step.recharge)
            if value not in recharge.values
        ]
    if key == "track":
        track = index.tracks.get(name)
        if track is None:
            return [Problem(at, f"names no live track '{name}'")]
        if step.kind is not None and step.kind not in {kind.id for kind in track.kinds or []}:
            what = "is not a kind of" if track.is_wound else "only narrows a wound track, not"
            return [Problem(f"{path}.kind", f"'{step.kind}' {what} track '{name}'")]
    if key == "state":
        state = index.states.get(name)
        if state is None:
            return [Problem(at, f"names no live state '{name}'")]
        if step.to != "default" and step.to not in state.values:
            return [
                Problem(
                    f"{path}.to", f"'{step.to}' is not \"default\" or a value of state '{name}'"
                )
            ]
    return []
