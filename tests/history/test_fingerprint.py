"""gmtags/history/fingerprint.py: what identifies a reply a client sends back (SPEC §7.1)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as hst

from gmtags.history.fingerprint import (
    EDGE,
    Fingerprint,
    card_lines,
    fingerprint,
    join,
    message_text,
)

CLOCK = '[clock: name="Alarm raised" tick="2" result="ok" now="4/6"]'
CHECK = '[skill_check: skill="Ward" dc="2" rolls="9|3" total="2" result="success"]'


class TestFingerprint:
    def test_receipts_when_there_are_any(self) -> None:
        """A message with receipts is known by them, so editing the prose keeps it."""
        one = fingerprint(f"The bell rings. {CLOCK}\nBram runs. {CHECK}")
        two = fingerprint(f"A bell!  {CLOCK}\n\n(edited) {CHECK} The end.")
        assert one == two and one.receipts == (CLOCK, CHECK) and one.kind == "r"

    def test_receipt_whitespace_is_collapsed(self) -> None:
        """A receipt whose spaces a client doubled is the same receipt."""
        assert fingerprint(CLOCK.replace(" ", "  ")) == fingerprint(CLOCK)

    def test_tags_without_result_are_not_receipts(self) -> None:
        """A tag the engine never answered is prose: the message is known by its text."""
        print_ = fingerprint('Go. [clock: name="Alarm" tick="1"]')
        assert print_.receipts == () and print_.text == 'Go. [clock: name="Alarm" tick="1"]'

    def test_text_is_collapsed_and_trimmed(self) -> None:
        """Whitespace runs fold to one space and the ends are trimmed."""
        assert fingerprint("  The road\n\n is   dark.\t") == fingerprint("The road is dark.")

    def test_spaces_at_emphasis_marks_are_ignored(self) -> None:
        """SillyTavern's markdown fix moving spaces inside `*` pairs keeps the fingerprint."""
        assert fingerprint("*He nods. * Then _ quietly _") == fingerprint(
            "*He nods.* Then _quietly_"
        )

    def test_speaker_prefix_is_ignored(self) -> None:
        """SillyTavern's `Name: ` prefix on the first line does not change the fingerprint."""
        assert fingerprint("Gamemaster: The road is dark.") == fingerprint("The road is dark.")

    def test_reasoning_is_left_out(self) -> None:
        """SPEC §2.1: a reply stored with its `<think>` block is the reply a client that
        parses reasoning sends back without it (closed, or never closed to the end)."""
        bare = fingerprint("The road is dark.")
        assert fingerprint("<think>Is it? [clock: x]</think>The road is dark.") == bare
        assert fingerprint("The road is dark.<thinking>and then") == bare
        assert fingerprint("<think>x</think> The road <REASONING>y</reasoning>is dark.") == bare

    def test_only_a_short_first_line_prefix_is_a_speaker(self) -> None:
        """A colon past 64 characters, or on a later line, is prose."""
        long = "x" * EDGE + ": rest"
        assert fingerprint(long).text == long
        assert fingerprint("Line one\nName: two").text == "Line one Name: two"

    def test_surrogate_pairs_are_joined(self) -> None:
        """A character written as two UTF-16 halves is that character."""
        assert fingerprint("Hi \ud83d\ude00") == fingerprint("Hi 😀")
        assert fingerprint("Hi \ud83d").text == "Hi \ufffd"


class TestChains:
    def test_space_and_blank_line_joins_are_equal(self) -> None:
        """A partial and its continuation joined by " " (SillyTavern) or a blank line ("merge")
        both make the chain's fingerprint."""
        chain = join([fingerprint("The door"), fingerprint("opens slowly.")])
        assert fingerprint("The door opens slowly.") == chain
        assert fingerprint("The door\n\nopens slowly.") == chain

    def test_receipts_of_a_chain_are_concatenated(self) -> None:
        """A chain's receipts are its pieces' receipts in order."""
        chain = join([fingerprint(f"a {CLOCK}"), fingerprint("b"), fingerprint(f"c {CHECK}")])
        assert chain == Fingerprint((CLOCK, CHECK), "")

    def test_end_keys_reach_every_last_piece(self) -> None:
        """Whatever piece ends a chain, its own key or tail is among the message's end keys."""
        long_end = "and then " + "the corridor goes on " * 5
        for pieces in (["The door", "opens."], ["Short.", long_end], ["x " * 40, "end"]):
            whole = fingerprint(" ".join(pieces))
            last = fingerprint(pieces[-1])
            keys, tail = whole.end_keys()
            assert last.key in keys or (tail is not None and last.tail == tail)
            assert whole.ends_with(last)

    def test_ends_with_needs_a_whole_piece(self) -> None:
        """A piece ends a text only at a space, and a receipts chain only at whole receipts."""
        assert not fingerprint("The doors").ends_with(fingerprint("s"))
        assert fingerprint("The door").ends_with(fingerprint("door"))
        assert not fingerprint(f"a {CLOCK}").ends_with(fingerprint("no receipts"))
        rest = fingerprint(f"{CLOCK} {CHECK}").without_end(fingerprint(CHECK))
        assert rest == Fingerprint((CLOCK,), "")


class TestMessageText:
    def test_string_and_parts(self) -> None:
        """Content is a string, or the text parts of a list of parts."""
        assert message_text("hi") == "hi"
        parts = [
            {"type": "text", "text": "a"},
            {"type": "image_url"},
            {"type": "text", "text": "b"},
        ]
        assert message_text(parts) == "a\nb"
        assert message_text(None) == ""


_WORDS = hst.text(alphabet="abcdefgh .,!?\n\t", min_size=1, max_size=40).filter(
    lambda text: text.strip() != ""
)
_RECEIPTS = hst.sampled_from([CLOCK, CHECK, '[sheet: op="spend" result="refused" reason="x"]'])
_PIECES = hst.lists(
    hst.tuples(_WORDS, hst.lists(_RECEIPTS, max_size=2)).map(
        lambda pair: " ".join([pair[0], *pair[1]])
    ),
    min_size=1,
    max_size=5,
)


class TestChainProperties:
    @given(pieces=_PIECES, glue=hst.sampled_from([" ", "\n\n", "  \n"]))
    def test_a_message_saved_whole_is_its_chain(self, pieces: list[str], glue: str) -> None:
        """However the pieces of a continued reply are glued (SillyTavern's space, "merge"'s
        blank line), the whole message's fingerprint is the chain of the pieces'."""
        assert fingerprint(glue.join(pieces)) == join(fingerprint(piece) for piece in pieces)

    @given(pieces=_PIECES)
    def test_the_last_piece_is_always_found(self, pieces: list[str]) -> None:
        """The last piece that contributes to a whole is found under its end keys and ends it;
        taking it off leaves the chain of the rest."""
        whole = fingerprint(" ".join(pieces))
        prints = [fingerprint(piece) for piece in pieces]
        contributing = [p for p in prints if p.receipts] if whole.receipts else prints
        last = contributing[-1]
        keys, tail = whole.end_keys()
        assert last.key in keys or (tail is not None and last.tail == tail)
        assert whole.ends_with(last)
        assert whole.without_end(last) == join(contributing[:-1])


class TestCardLines:
    """SPEC §7.3: a card line counts as a receipt, so a message showing cards is known by them."""

    def test_a_message_of_cards_is_its_cards(self) -> None:
        """Each card line, whitespace collapsed, is one entry, in order."""
        text = (
            "The gate holds. \n🎲 **Ward** ·  Bram · 2d6 vs 9 → 3, 4 = 7 · **failure**\n"
            "Rain.\n🕒 **Alarm** 1/6"
        )
        assert fingerprint(text).receipts == (
            "🎲 **Ward** · Bram · 2d6 vs 9 → 3, 4 = 7 · **failure**",
            "🕒 **Alarm** 1/6",
        )

    def test_cards_and_receipts_keep_their_order(self) -> None:
        """Receipts and card lines are listed as they come in the text."""
        receipt = '[clock: name="A" tick="1" result="ok" now="1/4"]'
        text = f"{receipt}\n❤️ Bram Harm 1/4 Scuffed\nSo. {receipt}"
        assert fingerprint(text).receipts == (receipt, "❤️ Bram Harm 1/4 Scuffed", receipt)

    def test_prose_edits_around_cards_keep_the_fingerprint(self) -> None:
        """Like receipts, cards identify a message whatever prose surrounds them."""
        card = '⚠️ clock refused: no clock named "Dusk"'
        assert fingerprint(f"One.\n{card}\nTwo.") == fingerprint(f"Other words.\n{card}")

    def test_a_first_line_card_after_a_speaker_prefix(self) -> None:
        """SillyTavern's names modes put `Name: ` before the first line; its card still counts."""
        assert fingerprint("GM: 🕒 **Alarm** 2/6\nMore.").receipts == ("🕒 **Alarm** 2/6",)

    def test_a_marker_inside_a_line_is_prose(self) -> None:
        """A marker that does not start a line, or has no space after it, is text."""
        assert fingerprint("He rolls 🎲 and grins.\n🎲dice").receipts == ()
        assert card_lines("a\n🎲 b\nc 🕒 d") == [(2, 5)]
