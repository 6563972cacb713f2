"""A save from the pages is never lost and never lands in the wrong place (SPEC §11).

"a save made while a reply streams is in the state after that reply too, and a
character saved on the pages stays in play when the player swipes, regenerates
or deletes the reply that was current when it was saved (the save belongs to
the chat from that point on, on every branch that continues from it or from an
earlier message)".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gmtags.history.store import HistoryStore
from gmtags.server.chats import ChatBook
from gmtags.server.demo_upstream import ScriptedUpstream
from gmtags.state.saves import save_card, save_party_sheet
from gmtags.state.snapshot import Snapshot
from tests.postgres import PostgresServer
from tests.server.conftest import Proxy
from tests.server.test_chats import AFTER, LATER, START, SYSTEM, gm, user

ILSE = {"abilities": {"nerve": 2}}
ILSE_HURT = {"abilities": {"nerve": 1}}
CHAT = "c"


@pytest.fixture(params=["sqlite", "postgresql"])
def book(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatBook]:
    """A chat book over an empty store on each database (`tests/postgres.py`)."""
    where = str(tmp_path / "h.sqlite3")
    if request.param == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres")
        where = server.create_database()
    with HistoryStore(where) as store:
        yield ChatBook(store, START)


def _save(book: ChatBook, name: str = "Ilse", card: dict[str, Any] = ILSE) -> Snapshot:
    """What the builder page's Save does: the card into the chat's current snapshot."""
    save = {"name": name, "card": card}
    return book.store.edit_current(CHAT, lambda s: save_card(s, name, card), save)


def _cards(snapshot: Snapshot | None) -> dict[str, Any]:
    assert snapshot is not None
    return dict(snapshot.to_json_dict().get("gameCharacterCards") or {})


def _turn(book: ChatBook, messages: list[dict[str, str]], reply: str, after: Snapshot) -> int:
    """One request and its reply, `after` the snapshot its processing left (with the saves it
    started from, as the processor hands on whatever it is given)."""
    turn = book.begin(CHAT, messages)
    left = after.model_copy(update={"game_character_cards": turn.before.game_character_cards})
    return book.finish(turn, reply, left).id


class TestSwipe:
    def test_a_character_saved_on_a_reply_stays_when_that_reply_is_swiped(
        self, book: ChatBook
    ) -> None:
        first = [SYSTEM, user("I push.")]
        _turn(book, first, "The gate holds.", AFTER)
        _save(book)
        swipe = book.begin(CHAT, first)  # the same request again: a sibling of the saved reply
        assert swipe.node.parent is None
        assert "Ilse" in _cards(swipe.before)
        assert "Ilse" in _cards(book.current(CHAT))  # the state shown while it streams

    def test_it_stays_when_the_player_deletes_back_past_it(self, book: ChatBook) -> None:
        first = [SYSTEM, user("I push.")]
        second = [*first, gm("The gate holds."), user("Again.")]
        _turn(book, first, "The gate holds.", AFTER)
        _turn(book, second, "It gives.", LATER)
        _save(book)
        back = book.begin(CHAT, [SYSTEM, user("I wait instead.")])  # every reply deleted
        assert back.anchor is None
        assert "Ilse" in _cards(back.before)

    def test_a_reply_going_on_from_it_is_not_given_it_again(self, book: ChatBook) -> None:
        """Play after the save changes the card; the save is not put back over that."""
        first = [SYSTEM, user("I push.")]
        second = [*first, gm("The gate holds."), user("Again.")]
        third = [*second, gm("It gives."), user("On.")]
        _turn(book, first, "The gate holds.", AFTER)
        _save(book)
        turn = book.begin(CHAT, second)
        hurt = save_card(turn.before, "Ilse", ILSE_HURT)
        book.finish(turn, "It gives.", hurt)
        after = book.begin(CHAT, third)
        assert _cards(after.before)["Ilse"]["abilities"] == {"nerve": 1}
        assert _cards(book.current(CHAT))["Ilse"]["abilities"] == {"nerve": 1}

    def test_a_later_save_of_the_same_name_wins(self, book: ChatBook) -> None:
        first = [SYSTEM, user("I push.")]
        _turn(book, first, "The gate holds.", AFTER)
        _save(book)
        _save(book, card=ILSE_HURT)
        swipe = book.begin(CHAT, first)
        assert _cards(swipe.before)["Ilse"]["abilities"] == {"nerve": 1}

    def test_a_save_at_the_start_is_in_every_reply(self, book: ChatBook) -> None:
        book.store.ensure_chat(CHAT, START)
        _save(book)
        turn = book.begin(CHAT, [SYSTEM, user("I push.")])
        assert "Ilse" in _cards(turn.before)

    def test_the_party_sheet_is_carried_too(self, book: ChatBook) -> None:
        first = [SYSTEM, user("I push.")]
        _turn(book, first, "The gate holds.", AFTER)
        sheet = {"fields": {"name": "The Lanterns"}}
        book.store.edit_current(
            CHAT, lambda s: save_party_sheet(s, sheet, 0), {"party": True, "sheet": sheet}
        )
        swipe = book.begin(CHAT, first)
        assert swipe.before.to_json_dict()["gamePartySheet"] == sheet


class TestWhileStreaming:
    def test_a_save_made_while_a_reply_is_made_is_in_the_state_after_it(
        self, book: ChatBook
    ) -> None:
        turn = book.begin(CHAT, [SYSTEM, user("I push.")])
        _save(book)  # the player saves on the builder page as the reply streams
        node = book.finish(turn, "The gate holds.", AFTER)
        assert "Ilse" in _cards(book.store.snapshot(node.after))
        assert "Ilse" in _cards(book.current(CHAT))
        assert node.saves  # held, so the next reply does not put it back again

    def test_through_the_proxy(self, make_proxy: Callable[..., Proxy]) -> None:
        """A real streamed reply, paced, with a save posted on the page's endpoint mid-way."""
        proxy = make_proxy(upstream=ScriptedUpstream(pace=0.02))
        base = proxy.server.url
        started = threading.Event()

        def play() -> None:
            body = {
                "model": "gmtags-demo",
                "stream": True,
                "messages": [SYSTEM, {"role": "user", "content": "I push."}],
            }
            headers = {"X-Gmtags-Chat": "streamed"}
            with httpx.stream(
                "POST", f"{base}/v1/chat/completions", json=body, headers=headers, timeout=30
            ) as reply:
                for _ in reply.iter_lines():
                    started.set()

        player = threading.Thread(target=play)
        player.start()
        assert started.wait(20)
        saved = httpx.post(
            f"{base}/gmtags/api/builder/save",
            json={"chat": "streamed", "name": "Ilse", "card": {"abilities": {"nerve": 2}}},
        )
        assert saved.status_code == 200
        player.join(30)
        state = httpx.get(f"{base}/gmtags/chats/streamed/state").json()
        assert "Ilse" in state["gameCharacterCards"]
        assert "Bram the Quiet" in state["gameCharacterCards"]
        assert any(clock["name"] == "Alarm raised" for clock in state["rulesetClocks"]), state


class TestGoingOnFrom:
    """The Game panel's state at a message: where a turn written there goes on from."""

    def test_a_reply_before_the_save_goes_on_with_the_saved_character(self, book: ChatBook) -> None:
        first = [SYSTEM, user("I push.")]
        second = [*first, gm("The gate holds."), user("Again.")]
        older = _turn(book, first, "The gate holds.", AFTER)
        _turn(book, second, "It gives.", LATER)
        _save(book)
        node = book.store.node(older)
        assert "Ilse" not in _cards(book.store.snapshot(node.after))  # history is kept
        assert "Ilse" in _cards(book.going_on_from(CHAT, node))
        assert "Ilse" in _cards(book.going_on_from(CHAT, None))  # and from the start
        branch = book.begin(CHAT, second)  # the next turn from there has her indeed
        assert "Ilse" in _cards(branch.before)
