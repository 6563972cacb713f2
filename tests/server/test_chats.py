"""gmtags/server/chats.py: which chat a request is in, where its reply starts, what is current."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags.history.store import HistoryStore
from gmtags.server.chats import ChatBook, Turn, chat_header
from gmtags.state.snapshot import Snapshot

START = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 0}]})
AFTER = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})
LATER = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 3}]})

SYSTEM = {"role": "system", "content": "GM"}
GREETING = {"role": "assistant", "content": "The road is dark."}


@pytest.fixture
def book(tmp_path: Path) -> Iterator[ChatBook]:
    """A chat book over an empty store, new chats starting from START."""
    with HistoryStore(tmp_path / "h.sqlite3") as store:
        yield ChatBook(store, START)


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def pushed(book: ChatBook, reply: str) -> Turn:
    """The chat "c" after its first turn ("I push.") got `reply`, leaving AFTER."""
    first = book.begin("c", [SYSTEM, user("I push.")])
    book.finish(first, reply, AFTER)
    return first


class TestBegin:
    def test_new_chat_starts_from_the_start(self, book: ChatBook) -> None:
        """A request with no anchor starts from the start, with no parent."""
        turn = book.begin("c", [SYSTEM, GREETING, user("I light a lamp.")])
        assert turn.before == START and turn.anchor is None and turn.kind == "turn"
        assert turn.node.parent is None and turn.chat_id == "c"

    def test_without_header_or_anchor_a_new_random_chat(self, book: ChatBook) -> None:
        """Two first requests without a header, even with one greeting, are two new chats."""
        one = book.begin(None, [SYSTEM, GREETING, user("I light a lamp.")])
        two = book.begin(None, [SYSTEM, GREETING, user("I light a lamp.")])
        assert one.chat_id != two.chat_id and one.chat_id.startswith("chat-")

    def test_next_turn_starts_after_its_anchor(self, book: ChatBook) -> None:
        """A request going on from a stored reply starts from that reply's snapshot after."""
        first = book.begin(None, [SYSTEM, user("I push.")])
        book.finish(first, "The gate holds.", AFTER)
        turn = book.begin(None, [SYSTEM, user("I push."), gm("The gate holds."), user("Again.")])
        assert turn.chat_id == first.chat_id and turn.before == AFTER
        assert turn.anchor is not None and turn.anchor.id == first.node.id

    def test_swipe_is_a_sibling(self, book: ChatBook) -> None:
        """A request ending where an earlier one ended starts before that earlier reply."""
        pushed(book, "The gate holds.")
        asked = [SYSTEM, user("I push."), gm("The gate holds."), user("Again.")]
        second = book.begin("c", asked)
        book.finish(second, "It gives.", LATER)
        swipe = book.begin("c", asked)
        assert swipe.before == AFTER and swipe.node.parent == second.node.parent

    def test_current_moves_to_the_anchor_then_the_turn(self, book: ChatBook) -> None:
        """The current state is the anchor's while a turn is made, then the turn's."""
        pushed(book, "The gate holds.")
        book.finish(
            book.begin("c", [SYSTEM, user("I push."), gm("The gate holds."), user("a")]), "x", LATER
        )
        assert book.current("c") == LATER
        swipe = book.begin("c", [SYSTEM, user("I push."), gm("The gate holds."), user("a")])
        assert book.current("c") == AFTER
        book.finish(swipe, "y", LATER)
        assert book.current("c") == LATER

    def test_continuation_is_current_once_anchored(self, book: ChatBook) -> None:
        """A continue reply is current only when a later request anchors on it."""
        pushed(book, "The gate")
        nudge = {"role": "system", "content": "[Continue: The gate]"}
        more = book.begin("c", [SYSTEM, user("I push."), gm("The gate"), nudge])
        assert more.kind == "continue" and more.before == AFTER
        book.finish(more, "holds.", LATER)
        assert book.current("c") == AFTER
        later = book.begin("c", [SYSTEM, user("I push."), gm("The gate holds."), user("Go")])
        assert later.anchor is not None and later.anchor.id == more.node.id
        assert book.current("c") == LATER

    def test_background_reply_never_becomes_current(self, book: ChatBook) -> None:
        """A summary's reply is stored but the chat goes on from the reply it summarised."""
        pushed(book, "The gate holds.")
        summary = {"role": "system", "content": "Summarize the story so far."}
        aside = book.begin("c", [SYSTEM, user("I push."), gm("The gate holds."), summary])
        book.finish(aside, "Bram pushed a gate.", LATER)
        assert book.current("c") == AFTER
        turn = book.begin("c", [SYSTEM, user("I push."), gm("The gate holds."), user("Go")])
        assert turn.before == AFTER

    def test_test_message_is_never_current(self, book: ChatBook) -> None:
        """SillyTavern's "Test Message" is answered and stored but never current."""
        turn = book.begin("c", [user("Hi")])
        assert turn.kind == "aside"
        book.finish(turn, "Hello!", LATER)
        assert book.current("c") == START

    def test_abandon(self, book: ChatBook) -> None:
        """A reply that was never made leaves no node."""
        book.abandon(book.begin("c", [SYSTEM, user("I push.")]))
        assert book.store.nodes("c") == []

    def test_unknown_chat_has_no_state(self, book: ChatBook) -> None:
        """A chat the store has never seen has no current snapshot."""
        assert book.current("nobody") is None


class TestChatHeader:
    def test_only_header_safe_ids(self) -> None:
        """An id goes back as its UTF-8 bytes (Starlette writes header text as latin-1), so a
        client echoing it names the same chat; one with a control character goes without."""
        assert chat_header("camp-1") == {"X-Gmtags-Chat": "camp-1"}
        assert chat_header("Élise") == {"X-Gmtags-Chat": "Élise".encode().decode("latin-1")}
        assert chat_header("a\nb") == {} and chat_header(None) == {}
