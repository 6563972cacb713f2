"""`[clock:]`: create, tick and clear progress clocks.

002, "Relojes de progreso del grupo y de la escena (clocks)". Clocks belong to
the party or the scene, are stored in every snapshot as `rulesetClocks`, and
each tag asks for exactly one action.
"""

from __future__ import annotations

from gmtags.engine.context import Applied, Context
from gmtags.state.snapshot import Clock, Snapshot, clock_key, clock_name_ok
from gmtags.tags.card import Pairs, clock_card
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import Receipt, refused
from gmtags.text import parse_int

_ACTIONS = ("size", "tick", "clear")
_ATTRS = ("name", *_ACTIONS)
_CLEAR_VALUES = (None, "true")


def _echo(tag: ParsedTag, name: str | None = None) -> Pairs:
    """The clock attributes the model wrote, in receipt order; unknown ones are dropped."""
    pairs = []
    for key in _ATTRS:
        if tag.has(key):
            value = tag.get(key)
            pairs.append((key, name if key == "name" and name is not None else value))
    return tuple(pairs)


def _inputs(tag: ParsedTag) -> Pairs:
    return tuple((attr.key, attr.value) for attr in tag.attrs)


def _ok(tag: ParsedTag, name: str, now: str) -> Receipt:
    outputs = (*_echo(tag, name), ("result", "ok"), ("now", now))
    return Receipt("clock", _inputs(tag), outputs, clock_card(outputs))


def apply_clock(tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied:
    """Apply one `[clock:]` tag; a refusal leaves the snapshot as it was."""
    config = context.ruleset.clocks

    def refuse(reason: str, name: str | None = None) -> Applied:
        receipt = refused("clock", _inputs(tag), _echo(tag, name), reason)
        return Applied(snapshot, receipt)

    if config is None:
        # 002: a ruleset without `clocks` keeps the clock commands switched off.
        return refuse("no-clocks")
    actions = [key for key in _ACTIONS if tag.has(key)]
    written = tag.get("name")
    if written is None or len(actions) != 1:
        # 002: each tag asks for exactly one action, on a named clock.
        return refuse("malformed")
    name = written.strip()
    if not clock_name_ok(name):
        return refuse("bad-name")
    clocks = snapshot.ruleset_clocks
    key = clock_key(name)
    index = next((i for i, clock in enumerate(clocks) if clock_key(clock.name) == key), None)
    action = actions[0]

    if action == "size":
        size = parse_int(tag.get("size"), context.limits.integer_digits)
        if size is None or size not in config.sizes:
            return refuse("bad-size", name)
        if index is not None:
            return refuse("duplicate-clock", clocks[index].name)
        if len(clocks) >= config.max:
            # 002: a full clock still counts toward `max` until it is cleared.
            return refuse("clock-limit", name)
        clock = Clock(name=name, size=size, filled=0)
        return Applied(
            snapshot.with_clocks((*clocks, clock)),
            _ok(tag, name, f"0/{size}"),
        )

    if index is None:
        return refuse("unknown-clock", name)
    clock = clocks[index]

    if action == "clear":
        if tag.get("clear") not in _CLEAR_VALUES:
            return refuse("malformed", clock.name)
        remaining = clocks[:index] + clocks[index + 1 :]
        return Applied(snapshot.with_clocks(remaining), _ok(tag, clock.name, "cleared"))

    tick = parse_int(tag.get("tick"), context.limits.integer_digits)
    if tick is None:
        return refuse("bad-tick", clock.name)
    # 002: negative ticks take segments away; the fill is clamped to 0..size.
    filled = min(max(clock.filled + tick, 0), clock.size)
    ticked = Clock(name=clock.name, size=clock.size, filled=filled)
    now = f"{filled}/{clock.size}"
    updated = (*clocks[:index], ticked, *clocks[index + 1 :])
    return Applied(snapshot.with_clocks(updated), _ok(tag, clock.name, now))
