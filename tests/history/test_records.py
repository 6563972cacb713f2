"""gmtags/history/records.py: before and after every assistant message and swipe."""

from __future__ import annotations

import pytest

from gmtags import Snapshot
from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.history.snapshots import SnapshotTable


def clocks(filled: int) -> Snapshot:
    """A snapshot with one clock filled `filled` of 8."""
    return Snapshot.model_validate({"rulesetClocks": [{"name": "A", "size": 8, "filled": filled}]})


@pytest.fixture
def history() -> History:
    """Messages: 0 user, 1 assistant (2 swipes, current 1), 2 user, 3 assistant."""
    table = SnapshotTable()
    s = [table.add(clocks(n)) for n in range(4)]
    messages = {
        1: MessageRecord((SwipeRecord(s[0], s[1], 7), SwipeRecord(s[0], s[2], 8)), current=1),
        3: MessageRecord((SwipeRecord(s[2], s[3]),)),
    }
    return History("c", s[0], 4, messages, table)


class TestHistory:
    def test_before_and_after(self, history: History) -> None:
        """Swipes share the snapshot before; each has its own after."""
        assert history.before(1) == clocks(0)
        assert history.after(1, 0) == clocks(1)
        assert history.after(1) == clocks(2)

    def test_state_of_non_assistant_messages(self, history: History) -> None:
        """A user message's state is the one after the last assistant message before it."""
        assert history.state(0) == clocks(0)
        assert history.state(2) == clocks(2)
        assert history.state() == clocks(3)

    def test_with_current(self, history: History) -> None:
        """Selecting a swipe changes the state after the message."""
        assert history.with_current(1, 0).after(1) == clocks(1)

    def test_without_renumbers(self, history: History) -> None:
        """Deleting messages renumbers later ones and moves the current state back."""
        shorter = history.without({2, 3})
        assert shorter.length == 2
        assert shorter.current() == clocks(2)
        assert history.without({0}).after(0) == clocks(2)

    def test_lookup_errors(self, history: History) -> None:
        """Missing messages, swipes and user-message swipes raise HistoryError."""
        with pytest.raises(HistoryError):
            history.after(0)
        with pytest.raises(HistoryError):
            history.after(1, 5)
        with pytest.raises(HistoryError):
            history.state(9)

    def test_record_json_round_trip(self) -> None:
        """A swipe record reads back what it writes; a broken one reads as None."""
        record = SwipeRecord("a", "b", 3)
        assert SwipeRecord.from_json(record.to_json()) == record
        assert SwipeRecord.from_json({"before": 1}) is None
