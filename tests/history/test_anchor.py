"""gmtags/history/anchor.py: where a request stands in its chat, by content (SPEC §7.1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gmtags import Snapshot
from gmtags.history.anchor import Said, continues, find_anchor, is_player_turn, said
from gmtags.history.fingerprint import fingerprint
from gmtags.history.store import HistoryStore, Node

START = Snapshot()
CLOCK = '[clock: name="Alarm raised" tick="2" result="ok" now="2/6"]'
CHECK = '[skill_check: skill="Ward" dc="2" rolls="9|3" total="2" result="success"]'


@pytest.fixture
def store(store_path: str) -> Iterator[HistoryStore]:
    """An empty store with chats "c" and "d", on each database (tests/history/conftest.py)."""
    with HistoryStore(store_path) as opened:
        opened.ensure_chat("c", START)
        opened.ensure_chat("d", START)
        yield opened


def reply(store: HistoryStore, text: str, parent: Node | None = None, chat: str = "c") -> Node:
    """A finished reply node with this text under `parent`."""
    node = store.reserve(chat, None if parent is None else parent.id, "turn", START)
    return store.complete(node, START, fingerprint(text), current=True)


def talk(*pairs: tuple[str, str]) -> list[Said]:
    """Messages from (role, text) pairs."""
    return [Said(role, text) for role, text in pairs]


class TestFindAnchor:
    def test_last_matching_assistant_message(self, store: HistoryStore) -> None:
        """The anchor is the node of the last assistant message that matches one."""
        one = reply(store, "The gate holds.")
        two = reply(store, "The bell rings.", one)
        messages = talk(
            ("system", "GM"),
            ("assistant", "The gate holds."),
            ("user", "push"),
            ("assistant", "The bell rings."),
            ("user", "run"),
        )
        anchor = find_anchor(messages, store, "c")
        assert anchor is not None and anchor.node == two and anchor.message == 3

    def test_unknown_messages_are_passed_over(self, store: HistoryStore) -> None:
        """A greeting or a reply made elsewhere matches nothing; an earlier reply anchors."""
        one = reply(store, "The gate holds.")
        messages = talk(
            ("assistant", "Welcome, traveller."),
            ("assistant", "The gate holds."),
            ("user", "go"),
            ("assistant", "Something nobody stored."),
            ("user", "and?"),
        )
        anchor = find_anchor(messages, store, "c")
        assert anchor is not None and anchor.node == one

    def test_no_match_no_anchor(self, store: HistoryStore) -> None:
        """Messages matching no node have no anchor."""
        assert find_anchor(talk(("assistant", "Hello"), ("user", "hi")), store, None) is None

    def test_chat_limits_the_search(self, store: HistoryStore) -> None:
        """With a chat named, nodes of other chats never anchor."""
        reply(store, "The gate holds.", chat="d")
        messages = talk(("assistant", "The gate holds."), ("user", "go"))
        assert find_anchor(messages, store, "c") is None
        found = find_anchor(messages, store, None)
        assert found is not None and found.node.chat_id == "d"

    def test_edited_prose_keeps_the_receipts(self, store: HistoryStore) -> None:
        """A reply whose prose the player edited still matches by its receipts."""
        node = reply(store, f"The bell rings. {CLOCK}")
        messages = talk(("assistant", f"A BELL, loud. {CLOCK} (edited)"), ("user", "run"))
        anchor = find_anchor(messages, store, "c")
        assert anchor is not None and anchor.node == node

    def test_a_trimmed_history_still_anchors(self, store: HistoryStore) -> None:
        """Only the newest messages are sent: the last reply still places the request."""
        node = None
        for turn in range(40):
            node = reply(store, f"Reply number {turn}.", node)
        messages = talk(("system", "GM"), ("assistant", "Reply number 39."), ("user", "go"))
        anchor = find_anchor(messages, store, None)
        assert anchor is not None and anchor.node == node


class TestChains:
    @pytest.mark.parametrize("join", [" ", "\n\n"])
    def test_continued_message_matches_its_last_piece(self, store: HistoryStore, join: str) -> None:
        """A partial saved with its continuation, by a space or a blank line, matches the
        continuation's node."""
        partial = reply(store, "The door creaks")
        more = reply(store, "open, and the dark breathes out.", partial)
        messages = talk(("assistant", f"The door creaks{join}open, and the dark breathes out."))
        anchor = find_anchor(messages, store, "c")
        assert anchor is not None and anchor.node == more and anchor.first == partial.id

    def test_receipts_chain(self, store: HistoryStore) -> None:
        """A continued message with receipts in both pieces matches the chain of them."""
        partial = reply(store, f"Bell. {CLOCK}")
        more = reply(store, f"Ward. {CHECK}", partial)
        anchor = find_anchor(talk(("assistant", f"Bell. {CLOCK} Ward. {CHECK}")), store, "c")
        assert anchor is not None and anchor.node == more

    def test_a_chain_must_be_whole(self, store: HistoryStore) -> None:
        """A message that only ends like a node's text, past a missing piece, matches nothing."""
        partial = reply(store, "The door creaks")
        reply(store, "open.", partial)
        assert find_anchor(talk(("assistant", "A window creaks open.")), store, "c") is None


class TestTieBreak:
    def test_longest_matching_ancestry_wins(self, store: HistoryStore) -> None:
        """Of two nodes with the same text, the one whose ancestors match the earlier replies."""
        left = reply(store, "You go left.")
        right = reply(store, "You go right.")
        on_left = reply(store, "Nothing happens.", left)
        reply(store, "Nothing happens.", right)
        messages = talk(
            ("assistant", "You go left."), ("user", "wait"), ("assistant", "Nothing happens.")
        )
        anchor = find_anchor(messages, store, "c")
        assert anchor is not None and anchor.node == on_left

    def test_many_replies_with_the_same_receipts(self, store: HistoryStore) -> None:
        """Of hundreds of chats whose replies share one receipt, the earlier reply picks one."""
        spend = '[sheet: op="spend" pool="oil" amount="1" result="ok" now="3/4"]'
        ends = {}
        for number in range(300):
            chat = f"chat-{number}"
            store.ensure_chat(chat, START)
            first = reply(store, f"Chat {number} begins.", chat=chat)
            ends[number] = reply(store, f"Oil. {spend}", first, chat=chat)
        for number in (0, 150, 299):
            messages = talk(
                ("assistant", f"Chat {number} begins."), ("user", "go"), ("assistant", spend)
            )
            anchor = find_anchor(messages, store, None)
            assert anchor is not None and anchor.node == ends[number]

    def test_then_the_newest(self, store: HistoryStore) -> None:
        """With equal ancestry, the newest node wins."""
        reply(store, "Nothing happens.")
        newer = reply(store, "Nothing happens.")
        anchor = find_anchor(talk(("assistant", "Nothing happens.")), store, "c")
        assert anchor is not None and anchor.node == newer


class TestContinues:
    def test_ends_with_the_anchor(self) -> None:
        """A request ending with the anchor (a prefill continue) continues it."""
        assert continues(talk(("user", "go"), ("assistant", "The door")), 1)

    def test_system_after_the_anchor(self) -> None:
        """Only system messages after the anchor (a nudge, a background prompt) continue it."""
        assert continues(talk(("assistant", "The door"), ("system", "Summarize.")), 0)

    def test_strict_nudge_quotes_the_anchor(self) -> None:
        """A user message quoting the anchor's text (a nudge made a user message) continues it."""
        nudge = "[Continue the following message. Gamemaster: The   door]"
        assert continues(talk(("assistant", "Gamemaster: The door"), ("user", nudge)), 0)

    def test_the_player_speaking_is_a_turn(self) -> None:
        """A player's message after the anchor is a new turn, not a continuation."""
        assert not continues(talk(("assistant", "The door"), ("user", "I open it")), 0)


class TestIsPlayerTurn:
    def test_turn(self) -> None:
        """Ending with the player's message, with a system or assistant message, is a turn."""
        assert is_player_turn(said([{"role": "system", "content": "x"}, {"role": "user"}]))

    def test_test_message_is_not(self) -> None:
        """SillyTavern's "Test Message" (one user message alone) is no turn."""
        assert not is_player_turn(said([{"role": "user", "content": "Hi"}]))

    def test_ending_in_system_is_not(self) -> None:
        """A request ending with a system message (background) is no turn."""
        messages = [{"role": "user", "content": "a"}, {"role": "system", "content": "sum up"}]
        assert not is_player_turn(said(messages))
