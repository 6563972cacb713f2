"""gmtags/history/readback.py: cards sent back go upstream as the receipts they show (SPEC §7.3)."""

from __future__ import annotations

from gmtags import Snapshot
from gmtags.history.anchor import find_anchor, said
from gmtags.history.fingerprint import fingerprint
from gmtags.history.readback import shown_receipts, with_receipts
from gmtags.history.store import HistoryStore

START = Snapshot()
R1 = '[clock: name="Alarm" size="6" result="ok" now="0/6"]'
R2 = '[clock: name="Alarm" tick="1" result="ok" now="1/6"]'
C1 = "🕒 **Alarm** new 0/6"
C2 = "🕒 **Alarm** 1/6"


def reply(store: HistoryStore, parent: int | None, shown: str, applied: tuple[str, ...]) -> int:
    """Store a reply as the client was shown it, with the receipts it applied."""
    node = store.reserve("c", parent, "turn", START)
    return store.complete(node, START, fingerprint(shown), current=True, applied=applied).id


class TestWithReceipts:
    def test_each_card_becomes_its_receipt(self) -> None:
        """Card lines are replaced in order; the prose and the line breaks stay."""
        messages = [{"role": "assistant", "content": f"Bells.\n{C1}\nMore.\n{C2}"}]
        out = with_receipts(messages, {0: (R1, R2)})
        assert out[0]["content"] == f"Bells.\n{R1}\nMore.\n{R2}"
        assert messages[0]["content"] == f"Bells.\n{C1}\nMore.\n{C2}"  # copied, not changed

    def test_counts_that_differ_leave_the_message(self) -> None:
        """With one card fewer than receipts, which card shows which command is unknown."""
        messages = [{"role": "assistant", "content": f"Bells.\n{C1}"}]
        assert with_receipts(messages, {0: (R1, R2)}) == messages

    def test_a_speaker_prefix_is_kept(self) -> None:
        """A card on the first line after `Name: ` keeps the name before its receipt."""
        messages = [{"role": "assistant", "content": f"GM: {C1}"}]
        assert with_receipts(messages, {0: (R1,)})[0]["content"] == f"GM: {R1}"

    def test_text_parts(self) -> None:
        """A content of parts has its text parts' cards replaced, counted together."""
        parts = [{"type": "text", "text": C1}, {"type": "image_url"}, {"type": "text", "text": C2}]
        out = with_receipts([{"role": "assistant", "content": parts}], {0: (R1, R2)})
        assert out[0]["content"] == [
            {"type": "text", "text": R1},
            {"type": "image_url"},
            {"type": "text", "text": R2},
        ]


class TestShownReceipts:
    def test_the_anchor_and_its_ancestors(self, store: HistoryStore) -> None:
        """Every assistant message placement matched gets its own nodes' receipts."""
        store.ensure_chat("c", START)
        first = reply(store, None, f"Bells.\n{C1}", (R1,))
        reply(store, first, f"On.\n{C2}", (R2,))
        messages = said(
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": f"Edited.\n{C1}"},
                {"role": "user", "content": "b"},
                {"role": "assistant", "content": f"On.\n{C2}"},
                {"role": "user", "content": "c"},
            ]
        )
        anchor = find_anchor(messages, store, "c")
        assert shown_receipts(messages, anchor, store) == {3: (R2,), 1: (R1,)}

    def test_a_continued_message_gets_its_chain(self, store: HistoryStore) -> None:
        """A reply and its continuation saved as one message show both nodes' receipts."""
        store.ensure_chat("c", START)
        first = reply(store, None, f"Bells.\n{C1}", (R1,))
        reply(store, first, f"{C2}", (R2,))
        messages = said([{"role": "assistant", "content": f"Bells.\n{C1}\n{C2}"}])
        anchor = find_anchor(messages, store, "c")
        assert shown_receipts(messages, anchor, store) == {0: (R1, R2)}

    def test_no_anchor_no_receipts(self, store: HistoryStore) -> None:
        """A request that matches no reply has nothing read back."""
        store.ensure_chat("c", START)
        messages = said([{"role": "assistant", "content": C1}])
        assert shown_receipts(messages, find_anchor(messages, store, "c"), store) == {}
