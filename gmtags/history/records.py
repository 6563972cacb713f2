"""The snapshot history of one chat: before and after every assistant message and swipe.

SPEC §6 and 002 ("Relojes de progreso…", "Ficha de grupo…"): every assistant
message, and each of its swipes, has a snapshot before and after it; the
clocks (`rulesetClocks`), the party sheet (`gamePartySheet`) and the live
values (`rulesetLive`, `$party` included) are part of that snapshot, so
restoring one restores them all.

All swipes of a message share the snapshot before it: the state after the
previous assistant message's current swipe (or the chat's start). The state
"after" a message that is not an assistant message is the state after the
last assistant message before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from gmtags.state.snapshot import Snapshot


class HistoryError(LookupError):
    """A history lookup that has no answer (a message or swipe with no stored snapshot)."""


@dataclass(frozen=True, slots=True)
class SwipeRecord:
    """One swipe's snapshots by name, and the seed it was rolled with (None after a rebuild)."""

    before: str
    after: str
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as stored: `{"seed", "before", "after"}` (no seed when None)."""
        out: dict[str, Any] = {} if self.seed is None else {"seed": self.seed}
        return {**out, "before": self.before, "after": self.after}

    @staticmethod
    def from_json(data: Any) -> SwipeRecord | None:
        """A stored record, or None when `data` is not one."""
        if not isinstance(data, dict):
            return None
        before, after, seed = data.get("before"), data.get("after"), data.get("seed")
        if not isinstance(before, str) or not isinstance(after, str):
            return None
        if not isinstance(seed, int) or isinstance(seed, bool):
            seed = None
        return SwipeRecord(before, after, seed)


@dataclass(frozen=True, slots=True)
class MessageRecord:
    """An assistant message's swipes (None where a swipe has no stored record) and current one."""

    swipes: tuple[SwipeRecord | None, ...]
    current: int = 0

    def swipe(self, swipe: int | None = None) -> SwipeRecord:
        """The record of `swipe` (default: the current one)."""
        index = self.current if swipe is None else swipe
        if not 0 <= index < len(self.swipes):
            raise HistoryError(f"swipe {index} does not exist ({len(self.swipes)} swipes)")
        record = self.swipes[index]
        if record is None:
            raise HistoryError(f"swipe {index} has no stored snapshot")
        return record


@dataclass(frozen=True, slots=True)
class History:
    """The snapshot history of one chat: start, per-message records, snapshots by name."""

    chat_id: str
    start: str
    length: int
    """How many messages the chat has (assistant or not)."""
    messages: Mapping[int, MessageRecord] = field(default_factory=dict)
    snapshots: Mapping[str, Snapshot] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", MappingProxyType(dict(self.messages)))

    def snapshot(self, name: str) -> Snapshot:
        """The snapshot with this name."""
        try:
            return self.snapshots[name]
        except KeyError:
            raise HistoryError(f"snapshot {name[:12]}… is not stored") from None

    def record(self, message: int) -> MessageRecord:
        """The record of assistant message `message`."""
        if not 0 <= message < self.length:
            raise HistoryError(f"message {message} does not exist ({self.length} messages)")
        try:
            return self.messages[message]
        except KeyError:
            raise HistoryError(f"message {message} is not an assistant message") from None

    def last_assistant(self, upto: int | None = None) -> int | None:
        """The last assistant message at or before `upto` (default: the whole chat)."""
        limit = self.length - 1 if upto is None else upto
        found = [index for index in self.messages if index <= limit]
        return max(found) if found else None

    def before(self, message: int) -> Snapshot:
        """SPEC §6: the snapshot a regenerate of `message` starts from."""
        record = self.record(message)
        if record.swipes and any(r is not None for r in record.swipes):
            first = next(r for r in record.swipes if r is not None)
            return self.snapshot(first.before)
        raise HistoryError(f"message {message} has no stored snapshot")

    def after(self, message: int, swipe: int | None = None) -> Snapshot:
        """The snapshot after `message`'s swipe (default: its current swipe)."""
        return self.snapshot(self.record(message).swipe(swipe).after)

    def state(self, message: int | None = None, swipe: int | None = None) -> Snapshot:
        """SPEC §6 `transcript state`: the snapshot after message N (default: the last one).

        For a message that is not an assistant message, the state after the
        last assistant message before it (the start when there is none); a
        swipe can only be named on an assistant message.
        """
        index = self.length - 1 if message is None else message
        if self.length == 0 and message is None:
            return self.snapshot(self.start)
        if not 0 <= index < self.length:
            raise HistoryError(f"message {index} does not exist ({self.length} messages)")
        if index in self.messages:
            return self.after(index, swipe)
        if swipe is not None:
            raise HistoryError(f"message {index} is not an assistant message: it has no swipes")
        last = self.last_assistant(index)
        return self.snapshot(self.start) if last is None else self.after(last)

    def current(self) -> Snapshot:
        """The state after the last assistant message's current swipe (the start if none)."""
        last = self.last_assistant()
        return self.snapshot(self.start) if last is None else self.after(last)

    def current_name(self) -> str:
        """The name of `current()`."""
        last = self.last_assistant()
        return self.start if last is None else self.record(last).swipe().after

    def with_current(self, message: int, swipe: int) -> History:
        """This history with `swipe` made the current swipe of `message`."""
        record = self.record(message)
        record.swipe(swipe)  # it must exist and be stored
        messages = {**self.messages, message: replace(record, current=swipe)}
        return replace(self, messages=messages)

    def without(self, indexes: set[int]) -> History:
        """This history with the messages at `indexes` deleted (later ones renumbered)."""
        kept = [i for i in range(self.length) if i not in indexes]
        renumber = {old: new for new, old in enumerate(kept)}
        messages = {
            renumber[index]: record
            for index, record in self.messages.items()
            if index not in indexes
        }
        return replace(self, messages=messages, length=len(kept))

    def referenced(self) -> set[str]:
        """Every snapshot name the start and the records refer to."""
        names = {self.start}
        for record in self.messages.values():
            for swipe in record.swipes:
                if swipe is not None:
                    names.update((swipe.before, swipe.after))
        return names
