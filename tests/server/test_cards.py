"""SPEC §7.3 `--display cards`: a chat played through the official openai client.

The client receives cards and stores them; every later request is placed by
those cards (they are the replies' fingerprints), and the upstream is sent the
receipts where the cards were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gmtags import ProcessResult, process
from gmtags.history.store import HistoryStore, Node
from gmtags.server.demo_upstream import DEMO_REPLIES
from gmtags.state.snapshot import Snapshot
from tests.server.conftest import Proxy
from tests.server.test_completions import ask

SYSTEM = {"role": "system", "content": "You are the GM."}
PLAYER = ["I push the gate.", "I refill the lamp.", "I try the latch.", "I run."]


def played(proxy: Proxy, reply: int, before: Snapshot, node: Node) -> ProcessResult:
    """What `process` makes of canned reply `reply` from `before` with `node`'s seed."""
    return process(DEMO_REPLIES[reply], proxy.config.ruleset, before, seed=node.seed)


def as_receipts(cards_text: str, result: ProcessResult) -> str:
    """The cards text with each card line, in order, replaced by the receipt it shows."""
    receipts = [receipt.render() for receipt in result.receipts]
    cards = [receipt.card for receipt in result.receipts]
    lines = []
    for line in cards_text.split("\n"):
        if cards and line == cards[0]:
            cards.pop(0)
            line = receipts.pop(0)
        lines.append(line)
    assert not cards, "every card is a line of its own"
    return "\n".join(lines)


def nodes(proxy: Proxy, chat: str) -> list[Node]:
    with HistoryStore(proxy.config.db) as store:
        return store.nodes(chat)


def current(proxy: Proxy, chat: str) -> Snapshot | None:
    with HistoryStore(proxy.config.db) as store:
        return store.current(chat)


def assistant_texts(request: dict[str, Any]) -> list[str]:
    """The assistant messages the upstream received, in order."""
    return [m["content"] for m in request["messages"] if m["role"] == "assistant"]


class TestCardsChat:
    @pytest.mark.parametrize("stream", [False, True])
    def test_three_turns_and_a_swipe(
        self, make_proxy: Callable[..., Proxy], chat_id: str, stream: bool
    ) -> None:
        """Each turn anchors on the reply whose cards the client sent back, a swipe hangs under
        the same parent, the client gets cards and the upstream the receipts in their place."""
        proxy = make_proxy(display="cards")
        start = proxy.config.start
        talk: list[dict[str, str]] = [SYSTEM, {"role": "user", "content": PLAYER[0]}]

        # Turn 1: a check and a new clock, shown as cards on lines of their own.
        shown1 = ask(proxy, chat_id, talk, stream)
        (one,) = nodes(proxy, chat_id)
        result1 = played(proxy, 0, start, one)
        assert shown1 == result1.cards and "[skill_check" not in shown1
        assert (
            "\n🎲 **Ward** · Bram the Quiet · " in shown1
            and "\n🕒 **Alarm raised** new 0/6\n" in shown1
        )
        assert one.parent is None and one.receipts == tuple(r.render() for r in result1.receipts)
        assert current(proxy, chat_id) == result1.snapshot
        assert assistant_texts(proxy.upstream.requests[-1]) == []

        # Turn 2: the first reply comes back as the cards the client stored.
        talk += [{"role": "assistant", "content": shown1}, {"role": "user", "content": PLAYER[1]}]
        shown2 = ask(proxy, chat_id, talk, stream)
        two = nodes(proxy, chat_id)[-1]
        result2 = played(proxy, 1, result1.snapshot, two)
        assert two.parent == one.id and shown2 == result2.cards
        assert "💠 Bram the Quiet Lamp oil −1 → " in shown2 and "❤️ Bram the Quiet Harm" in shown2
        assert current(proxy, chat_id) == result2.snapshot
        assert assistant_texts(proxy.upstream.requests[-1]) == [as_receipts(shown1, result1)]

        # Turn 3: the player edited the prose of the first reply; its cards still place it.
        edited = shown1.replace("The lantern gutters", "The lamp flickers")
        talk[2] = {"role": "assistant", "content": edited}
        talk += [{"role": "assistant", "content": shown2}, {"role": "user", "content": PLAYER[2]}]
        shown3 = ask(proxy, chat_id, talk, stream)
        three = nodes(proxy, chat_id)[-1]
        result3 = played(proxy, 2, result2.snapshot, three)
        assert three.parent == two.id and shown3 == result3.cards
        assert current(proxy, chat_id) == result3.snapshot
        upstream3 = assistant_texts(proxy.upstream.requests[-1])
        assert upstream3 == [as_receipts(edited, result1), as_receipts(shown2, result2)]

        # A swipe: the same request again hangs a new reply under the same parent.
        swiped = ask(proxy, chat_id, talk, stream)
        swipe = nodes(proxy, chat_id)[-1]
        result3b = played(proxy, 2, result2.snapshot, swipe)
        assert swipe.parent == two.id and swipe.id != three.id and swiped == result3b.cards
        assert current(proxy, chat_id) == result3b.snapshot
        assert assistant_texts(proxy.upstream.requests[-1]) == upstream3

        # Turn 4 goes on from the swipe the player kept, whose cards it sends back.
        talk += [{"role": "assistant", "content": swiped}, {"role": "user", "content": PLAYER[3]}]
        shown4 = ask(proxy, chat_id, talk, stream)
        four = nodes(proxy, chat_id)[-1]
        result4 = played(proxy, 0, result3b.snapshot, four)
        assert four.parent == swipe.id and shown4 == result4.cards
        assert '⚠️ clock refused: a clock named "Alarm raised" already runs' in shown4
        assert current(proxy, chat_id) == result4.snapshot
        assert assistant_texts(proxy.upstream.requests[-1]) == [
            as_receipts(edited, result1),
            as_receipts(shown2, result2),
            as_receipts(swiped, result3b),
        ]

    def test_cards_left_as_they_are_when_the_counts_differ(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """A message whose cards no longer match its reply's receipts one for one (a card deleted
        by hand) is sent as the client has it."""
        proxy = make_proxy(display="cards")
        talk: list[dict[str, str]] = [SYSTEM, {"role": "user", "content": PLAYER[0]}]
        shown1 = ask(proxy, chat_id, talk, False)
        assert len(nodes(proxy, chat_id)) == 1
        kept = "\n".join(line for line in shown1.split("\n") if not line.startswith("🕒"))
        talk += [{"role": "assistant", "content": kept}, {"role": "user", "content": PLAYER[1]}]
        ask(proxy, chat_id, talk, False)
        assert nodes(proxy, chat_id)[-1].parent is None  # one card gone: it matches no reply
        assert assistant_texts(proxy.upstream.requests[-1]) == [kept]

    def test_receipts_mode_keeps_receipts(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """By default the client gets receipts, and the node lists the same receipts."""
        proxy = make_proxy()
        shown = ask(proxy, chat_id, [SYSTEM, {"role": "user", "content": PLAYER[0]}], True)
        (one,) = nodes(proxy, chat_id)
        result = played(proxy, 0, proxy.config.start, one)
        assert shown == result.text and one.receipts == tuple(r.render() for r in result.receipts)

    def test_hidden_mode_still_lists_receipts(
        self, make_proxy: Callable[..., Proxy], chat_id: str
    ) -> None:
        """SPEC §7.2: a node lists the receipts it applied whatever the client was shown."""
        proxy = make_proxy(display="hidden")
        shown = ask(proxy, chat_id, [SYSTEM, {"role": "user", "content": PLAYER[1]}], False)
        (one,) = nodes(proxy, chat_id)
        result = played(proxy, 0, proxy.config.start, one)
        assert shown == result.display
        assert one.receipts == tuple(r.render() for r in result.receipts)
