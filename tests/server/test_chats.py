"""gmtags/server/chats.py: chat ids and where each reply starts (the regenerate rule)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags.history.store import HistoryStore
from gmtags.server.chats import ChatBook, derive_chat_id
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.seeds import derive_seed

START = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 0}]})
AFTER = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})
LATER = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 3}]})

GREETING = {"role": "assistant", "content": "The road is dark."}
HELLO = {"role": "user", "content": "I light a lamp."}


@pytest.fixture
def book(tmp_path: Path) -> Iterator[ChatBook]:
    """A chat book over an empty store, new chats starting from START."""
    with HistoryStore(tmp_path / "h.sqlite3") as store:
        yield ChatBook(store, START)


def turn_messages(count: int) -> list[dict[str, str]]:
    """A system prompt and `count` alternating conversation messages."""
    roles = ("user", "assistant")
    return [{"role": "system", "content": "GM"}] + [
        {"role": roles[i % 2], "content": f"line {i}"} for i in range(count)
    ]


class TestDeriveChatId:
    def test_stable_as_the_chat_grows(self) -> None:
        """Later requests of the same conversation derive the same id as the first."""
        first = [GREETING, HELLO]
        later = [*first, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}]
        assert derive_chat_id(first) == derive_chat_id(later)

    def test_system_messages_do_not_count(self) -> None:
        """A changed system prompt leaves the id as it was."""
        one = [{"role": "system", "content": "a"}, GREETING, HELLO]
        two = [{"role": "system", "content": "b"}, GREETING, HELLO]
        assert derive_chat_id(one) == derive_chat_id(two)

    def test_first_player_line_tells_chats_apart(self) -> None:
        """Two chats sharing a greeting get different ids from the player's first line."""
        other = {"role": "user", "content": "I wait."}
        assert derive_chat_id([GREETING, HELLO]) != derive_chat_id([GREETING, other])


class TestChatBook:
    def test_new_chat_starts_from_the_start(self, book: ChatBook) -> None:
        """The first reply of a new chat starts from the configured start, swipe 0."""
        turn = book.begin("c", turn_messages(1))
        assert (turn.message, turn.swipe, turn.before) == (1, 0, START)
        assert turn.seed == derive_seed("c", 1, 0)

    def test_next_turn_starts_after_the_last_reply(self, book: ChatBook) -> None:
        """A request that goes on from a recorded reply starts from that reply's snapshot."""
        book.finish(book.begin("c", turn_messages(1)), AFTER)
        turn = book.begin("c", turn_messages(3))
        assert (turn.message, turn.swipe, turn.before) == (3, 0, AFTER)

    def test_same_end_is_a_regenerate(self, book: ChatBook) -> None:
        """Messages that end where a recorded reply began start before it, as a new swipe."""
        book.finish(book.begin("c", turn_messages(1)), AFTER)
        book.finish(book.begin("c", turn_messages(3)), LATER)
        turn = book.begin("c", turn_messages(3))
        assert (turn.message, turn.swipe, turn.before) == (3, 1, AFTER)
        assert turn.regenerate

    def test_going_back_forgets_later_replies(self, book: ChatBook) -> None:
        """A reply recorded for an earlier message drops the replies after it."""
        book.finish(book.begin("c", turn_messages(1)), AFTER)
        book.finish(book.begin("c", turn_messages(3)), LATER)
        turn = book.begin("c", turn_messages(1))
        book.finish(turn, LATER)
        assert book.store.length("c") == 2
        assert book.store.record("c", 3) is None
        assert book.current("c") == LATER

    def test_unknown_chat_has_no_state(self, book: ChatBook) -> None:
        """A chat the store has never seen has no current snapshot."""
        assert book.current("nobody") is None
