"""gmtags/history/prompted.py and `ChatBook.begin_text`: a text prompt placed by the replies it
holds (SPEC §7.2)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gmtags.history.fingerprint import card_lines, fingerprint
from gmtags.history.prompted import TEXT_WINDOW
from gmtags.history.store import HistoryStore
from gmtags.server.chats import ChatBook, Turn
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import DEMO_REPLIES
from gmtags.state.snapshot import Snapshot
from gmtags.stream import StreamProcessor

START = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 0}]})
ONE = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}]})
TWO = Snapshot.model_validate({"rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 2}]})

TICK = '[clock: name="Dawn" tick="1" result="ok" now="1/4"]'
TOCK = '[clock: name="Dawn" tick="1" result="ok" now="2/4"]'
REPLY = f"The bell rings once. {TICK} Bram waits."
PLAIN = "The road is quiet, and *nothing* moves."
REPLIES = 400
"""Replies without receipts in the long chat of the huge-prompt test."""


def chatml(*turns: tuple[str, str], open_reply: str | None = "") -> str:
    """A ChatML prompt as SillyTavern's Text Completion lays one out: a system part, the
    turns, and the next reply opened (or, `open_reply` text, a reply being continued)."""
    parts = ["<|im_start|>system\nYou are the GM of a dark road.<|im_end|>"]
    parts += [f"<|im_start|>{role}\n{text}<|im_end|>" for role, text in turns]
    if open_reply is not None:
        parts.append(f"<|im_start|>assistant\nGM: {open_reply}")
    return "\n".join(parts)


@pytest.fixture
def book(tmp_path: Path) -> Iterator[ChatBook]:
    with HistoryStore(tmp_path / "h.sqlite3") as store:
        yield ChatBook(store, START)


def played(book: ChatBook, chat: str | None, prompt: str, reply: str, after: Snapshot) -> Turn:
    turn = book.begin_text(chat, prompt)
    book.finish(turn, reply, after)
    return turn


class TestPlacement:
    def test_a_first_prompt_starts_a_chat_from_the_start(self, book: ChatBook) -> None:
        turn = book.begin_text("c", chatml(("user", "Bram: I knock.")))
        assert turn.anchor is None and turn.before == START and turn.kind == "turn"

    def test_the_second_turn_goes_on_from_the_reply_the_prompt_holds(self, book: ChatBook) -> None:
        """The reply with receipts is found among the prompt's receipts, its prose edited."""
        first = played(book, "c", chatml(("user", "I knock.")), REPLY, ONE)
        edited = REPLY.replace("Bram waits.", "Bram waits, cold.")
        prompt = chatml(("user", "I knock."), ("assistant", f"GM: {edited}"), ("user", "Again."))
        second = book.begin_text("c", prompt)
        assert second.anchor is not None and second.anchor.id == first.node.id
        assert second.before == ONE and second.kind == "turn"

    def test_a_reply_without_receipts_is_found_by_its_text(self, book: ChatBook) -> None:
        """Whitespace and the spaces inside emphasis are compared as fingerprints compare."""
        first = played(book, "c", chatml(("user", "I look.")), PLAIN, ONE)
        spaced = "The road  is quiet,\nand * nothing * moves."
        prompt = chatml(("user", "I look."), ("assistant", f"GM: {spaced}"), ("user", "On."))
        second = book.begin_text("c", prompt)
        assert second.anchor is not None and second.anchor.id == first.node.id

    def test_the_reply_occurring_last_is_the_anchor(self, book: ChatBook) -> None:
        first = played(book, "c", chatml(("user", "I knock.")), REPLY, ONE)
        prompt = chatml(("user", "I knock."), ("assistant", REPLY), ("user", "Again."))
        second = played(book, "c", prompt, f"It rings again. {TOCK}", TWO)
        third = book.begin_text(
            "c",
            chatml(
                ("user", "I knock."),
                ("assistant", REPLY),
                ("user", "Again."),
                ("assistant", f"It rings again. {TOCK}"),
                ("user", "Once more."),
            ),
        )
        assert third.anchor is not None and third.anchor.id == second.node.id
        assert second.node.parent == first.node.id and third.before == TWO

    def test_a_swipe_is_a_sibling(self, book: ChatBook) -> None:
        """The same prompt again (a swipe, a regenerate) starts from the same reply."""
        played(book, "c", chatml(("user", "I knock.")), REPLY, ONE)
        prompt = chatml(("user", "I knock."), ("assistant", REPLY), ("user", "Again."))
        one = played(book, "c", prompt, f"It rings again. {TOCK}", TWO)
        two = book.begin_text("c", prompt)
        assert two.node.parent == one.node.parent and two.before == ONE

    def test_a_prompt_ending_with_its_anchor_continues_it(self, book: ChatBook) -> None:
        first = played(book, "c", chatml(("user", "I knock.")), REPLY, ONE)
        going_on = book.begin_text("c", chatml(("user", "I knock."), open_reply=REPLY))
        assert going_on.kind == "continue" and going_on.node.parent == first.node.id

    def test_a_prompt_without_a_template_is_a_turn(self, book: ChatBook) -> None:
        """`Name: text` lines, the next reply opened by the GM's name: a turn, and a prompt
        ending in the reply's own text continues it."""
        first = played(book, "c", "Mara: I knock.\nWarden:", REPLY, ONE)
        turn = book.begin_text("c", f"Mara: I knock.\nWarden: {REPLY}\nMara: Again.\nWarden:")
        assert turn.kind == "turn" and turn.node.parent == first.node.id
        going_on = book.begin_text("c", f"Mara: I knock.\nWarden: {REPLY}")
        assert going_on.kind == "continue" and going_on.node.parent == first.node.id

    def test_an_unnamed_prompt_finds_its_chat_by_its_last_receipt(self, book: ChatBook) -> None:
        first = played(book, None, chatml(("user", "I knock.")), REPLY, ONE)
        prompt = chatml(("user", "I knock."), ("assistant", REPLY), ("user", "Again."))
        second = book.begin_text(None, prompt)
        assert second.chat_id == first.chat_id and second.before == ONE

    def test_an_unnamed_prompt_without_receipts_is_a_new_chat(self, book: ChatBook) -> None:
        first = played(book, None, chatml(("user", "I look.")), PLAIN, ONE)
        prompt = chatml(("user", "I look."), ("assistant", PLAIN), ("user", "On."))
        assert book.begin_text(None, prompt).chat_id != first.chat_id

    def test_a_reply_of_another_chat_is_not_looked_for(self, book: ChatBook) -> None:
        played(book, "other", chatml(("user", "I knock.")), REPLY, ONE)
        prompt = chatml(("user", "I knock."), ("assistant", REPLY), ("user", "Again."))
        turn = book.begin_text("c", prompt)
        assert turn.anchor is None and turn.before == START

    def test_the_tie_goes_to_the_reply_whose_ancestors_occur_before_it(
        self, book: ChatBook
    ) -> None:
        """Two replies with the same text: the one whose parent the prompt holds first wins,
        even when the other is newer."""
        first = played(book, "c", chatml(("user", "I look.")), PLAIN, ONE)
        prompt = chatml(("user", "I look."), ("assistant", PLAIN), ("user", "Wait."))
        wanted = played(book, "c", prompt, "Nothing.", TWO)
        stray = played(book, "c", chatml(("user", "Hm.")), "Nothing.", ONE)  # newer, no parent
        turn = book.begin_text(
            "c",
            chatml(
                ("user", "I look."),
                ("assistant", PLAIN),
                ("user", "Wait."),
                ("assistant", "Nothing."),
                ("user", "Go."),
            ),
        )
        assert stray.node.id > wanted.node.id and first.node.id == wanted.node.parent
        assert turn.anchor is not None and turn.anchor.id == wanted.node.id


def test_a_huge_prompt_in_a_long_chat_is_placed_quickly(book: ChatBook) -> None:
    """A megabyte of prompt against a chat of many replies without receipts: each reply is
    looked for in the prompt's last `TEXT_WINDOW` characters only."""
    book.store.ensure_chat("c", START)
    parent = None
    for number in range(REPLIES):
        text = f"reply {number} " * 8
        parent = book.store.add_node("c", parent, START, ONE, fingerprint(text), 1, current=True).id
    last = f"reply {REPLIES - 1} " * 8
    prompt = "filler " * (1024 * 1024 // 7) + last + "\nMara: go.\nGM:"
    assert len(prompt) > 10 * TEXT_WINDOW
    began = time.perf_counter()
    turn = book.begin_text("c", prompt)
    assert time.perf_counter() - began < 1.0
    assert turn.anchor is not None and turn.anchor.id == parent and turn.kind == "turn"
    far = book.begin_text("c", last + "filler " * (2 * TEXT_WINDOW // 7) + "\nMara: go.\nGM:")
    assert far.anchor is None  # a reply without receipts that far back is not looked for


class TestCardsReadBack:
    """`--display cards`: a prompt's cards go upstream as the receipts they show."""

    def test_the_anchor_and_its_ancestors(self, tmp_path: Path) -> None:
        config = demo_config("http://127.0.0.1:9/v1")
        with HistoryStore(tmp_path / "h.sqlite3") as store:
            book = ChatBook(store, config.start)
            shown: list[str] = []
            applied: list[str] = []
            before: tuple[tuple[str, str], ...] = ()
            for number, reply in enumerate(DEMO_REPLIES[:2]):
                turn = book.begin_text("c", chatml(*before, ("user", f"Turn {number}.")))
                cards = StreamProcessor(config.ruleset, turn.before, turn.seed, cards=True)
                text = cards.feed(reply) + cards.close()
                book.finish(turn, text, cards.result.snapshot, None, cards.result.receipts)
                shown.append(text)
                applied += [receipt.render() for receipt in cards.result.receipts]
                before = (*before, ("user", f"Turn {number}."), ("assistant", text))
            prompt = chatml(*before, ("user", "Turn 2."))
            assert card_lines(prompt)
            turn = book.begin_text("c", prompt)
            told = book.prompt_as_receipts(turn, prompt)
        assert not card_lines(told)
        assert [told.index(receipt) for receipt in applied] == sorted(
            told.index(receipt) for receipt in applied
        )
        assert told.replace("\n", "").count("[") >= len(applied)

    def test_a_reply_with_a_card_too_many_goes_as_it_is(self, tmp_path: Path) -> None:
        config = demo_config("http://127.0.0.1:9/v1")
        with HistoryStore(tmp_path / "h.sqlite3") as store:
            book = ChatBook(store, config.start)
            turn = book.begin_text("c", chatml(("user", "Go.")))
            cards = StreamProcessor(config.ruleset, turn.before, turn.seed, cards=True)
            text = cards.feed(DEMO_REPLIES[0]) + cards.close()
            book.finish(turn, text, cards.result.snapshot, None, cards.result.receipts[:1])
            prompt = chatml(("user", "Go."), ("assistant", text), ("user", "On."))
            second = book.begin_text("c", prompt)
            assert book.prompt_as_receipts(second, prompt) == prompt
