"""002, "Estado vivo": pools, tracks (plain and wound tracks) and states."""

from __future__ import annotations

from collections.abc import Sequence

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import (
    LivePool,
    LiveTrack,
)
from gmtags.ruleset.validate.index import NUMBER, SheetIndex
from gmtags.ruleset.validate.refs import check_ref, hide_when, no_live
from gmtags.ruleset.validate.sheet import expect_column


def pool_problems(pools: Sequence[LivePool], base: str, index: SheetIndex) -> list[Problem]:
    """002 `live.pools`: the max and `startFrom` read the sheet, never live state."""
    problems: list[Problem] = []
    for position, pool in enumerate(pools):
        path = f"{base}.{position}"
        problems += hide_when(pool.hide_when, path, index)
        for key, ref in (("max", pool.max), ("startFrom", pool.start_from)):
            if ref is None:
                continue
            found = check_ref(ref, f"{path}.{key}", index)
            problems += found
            if not found and not index.party:
                problems += no_live(ref, f"{path}.{key}", index, f"a pool's {key}")
    return problems


def check_live_pools(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Todo lector de números…": a pool max is worked out before play, so no live reads."""
    return pool_problems(ruleset.sheet.live.pools, "sheet.live.pools", index)


def check_live_tracks(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Contadores de heridas…" to "Niveles que añade una lista": the track rules.

    A plain track is a bounded number (its max may be a reference, 002 "El
    max de un contador simple…"). A wound track has kinds and either levels or
    boxes, never both; min 0; max equal to its levels or, for boxes, 0–64; only
    0 as default; distinct severities; penalties never better going down; never
    hidden; an indexed fill refuses when full; `extra` only with levels.
    """
    problems: list[Problem] = []
    for position, track in enumerate(ruleset.sheet.live.tracks):
        path = f"sheet.live.tracks.{position}"
        for key, ref in (("max", track.max), ("startFrom", track.start_from)):
            if isinstance(ref, RulesetValueRef):
                found = check_ref(ref, f"{path}.{key}", index)
                problems += found or no_live(ref, f"{path}.{key}", index, f"a track's {key}")
        if track.is_wound:
            problems += _wound_track(track, path, index)
        else:
            problems += _plain_track(track, path, index)
    return problems


def _plain_track(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    problems = hide_when(track.hide_when, path, index)
    for key, value in (("fill", track.fill), ("onFull", track.on_full), ("extra", track.extra)):
        if value is not None:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    f"{key} only goes on a wound track (kinds with levels or boxes)",
                )
            )
    if track.default is not None and track.start_from is not None:
        problems.append(
            Problem(
                f"{path}.startFrom",
                "a simple track takes startFrom instead of default, not beside it",
            )
        )
    if isinstance(track.max, int):
        if track.min > track.max:
            problems.append(Problem(f"{path}.max", "a track needs min ≤ max"))
        elif track.default is not None and not track.min <= track.default <= track.max:
            problems.append(Problem(f"{path}.default", "default must lie within min..max"))
    elif track.default is not None and track.default < track.min:
        problems.append(Problem(f"{path}.default", "default must not be below min"))
    return problems


def _wound_track(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    levels, boxes = track.levels, track.boxes
    if levels is None and boxes is None:
        problems.append(
            Problem(
                f"{path}.kinds", "kinds need levels or boxes: without them there is nowhere to mark"
            )
        )
    if levels is not None and boxes is not None:
        problems.append(Problem(f"{path}.boxes", "a wound track has levels or boxes, never both"))
    if track.kinds is None:
        key = "levels" if levels is not None else "boxes"
        problems.append(Problem(f"{path}.{key}", f"{key} need kinds: every mark is of some kind"))
    if track.min != 0:
        problems.append(Problem(f"{path}.min", "a wound track starts without marks: min is 0"))
    if track.default not in (None, 0):
        problems.append(Problem(f"{path}.default", "a wound track's default can only be 0"))
    if track.start_from is not None:
        problems.append(Problem(f"{path}.startFrom", "a wound track starts without marks"))
    if track.hide_when is not None:
        problems.append(
            Problem(
                f"{path}.hideWhen",
                "a wound track cannot be hidden: checks and "
                "fights read it whatever the sheet shows",
            )
        )
    if levels is not None and boxes is None:
        if track.max != len(levels):
            problems.append(
                Problem(
                    f"{path}.max",
                    f"a track with named levels has max equal to its {len(levels)} levels",
                )
            )
        for position in range(1, len(levels)):
            if levels[position].penalty > levels[position - 1].penalty:
                problems.append(
                    Problem(
                        f"{path}.levels.{position}.penalty",
                        "penalties never get better going down the levels",
                    )
                )
    if boxes is not None:
        if isinstance(track.max, int) and not 0 <= track.max <= 64:
            problems.append(Problem(f"{path}.max", "a track of numbered boxes has 0–64 boxes"))
        for position, (_, penalty) in enumerate(boxes.penalty.table):
            if penalty > 0:
                problems.append(
                    Problem(f"{path}.boxes.penalty.table.{position}", "a box penalty is 0 or below")
                )
    severities: set[int] = set()
    for position, kind in enumerate(track.kinds or []):
        if kind.severity in severities:
            problems.append(
                Problem(
                    f"{path}.kinds.{position}.severity",
                    "severities must be distinct: only their order matters",
                )
            )
        severities.add(kind.severity)
    if track.fill_mode == "indexed" and track.when_full != "refuse":
        problems.append(
            Problem(
                f"{path}.onFull",
                'an indexed track always refuses: declare "onFull": "refuse" beside it',
            )
        )
    if track.extra is not None:
        problems += _track_extra(track, path, index)
    return problems


def _track_extra(track: LiveTrack, path: str, index: SheetIndex) -> list[Problem]:
    extra = track.extra
    assert extra is not None
    at = f"{path}.extra"
    if track.levels is None:
        return [Problem(at, "extra adds levels, so it only goes with named levels")]
    if not index.parsed("sheet.lists"):
        return []
    sheet_list = index.lists.get(extra.list)
    if sheet_list is None:
        return [Problem(f"{at}.list", f"names no list '{extra.list}'")]
    return [
        *expect_column(
            sheet_list, extra.count_column, NUMBER, "a number column", f"{at}.countColumn"
        ),
        *expect_column(
            sheet_list, extra.penalty_column, NUMBER, "a number column", f"{at}.penaltyColumn"
        ),
    ]


def check_live_states(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """002, "Estados vivos": a state may be hidden by a field like a pool."""
    return [
        problem
        for position, state in enumerate(ruleset.sheet.live.states)
        for problem in hide_when(state.hide_when, f"sheet.live.states.{position}", index)
    ]
