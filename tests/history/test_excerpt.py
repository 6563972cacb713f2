"""gmtags/history/excerpt.py: a reply's first words, as the pages name it."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gmtags import Snapshot, load_ruleset, process
from gmtags.demo import demo_file
from gmtags.history.excerpt import (
    ELLIPSIS,
    EXCERPT_CHARS,
    SCAN_CHARS,
    excerpt,
    narration,
    shorten,
)
from gmtags.server.demo_upstream import DEMO_REPLIES


class TestNarration:
    def test_receipts_are_left_out(self) -> None:
        """A reply as the player received it, receipts in place, reads as its narration."""
        ruleset = load_ruleset(json.loads(demo_file("ruleset.json").read_text(encoding="utf-8")))
        start = Snapshot.model_validate_json(demo_file("state.json").read_text(encoding="utf-8"))
        text = process(DEMO_REPLIES[0], ruleset, start, seed=1).text
        assert "result=" in text
        said = excerpt(text)
        assert said.startswith("The lantern gutters as Bram sets his shoulder to the gate.")
        assert "[" not in said and "skill_check" not in said

    def test_a_tag_mid_sentence_leaves_one_space(self) -> None:
        """The narration either side of a tag joins with one space."""
        text = 'He is soaked[sheet: op="condition" condition="Soaked" result="ok"] to the skin.'
        assert excerpt(text) == "He is soaked to the skin."

    def test_cards_reasoning_and_speaker_are_left_out(self) -> None:
        """A card line (cards display), a reasoning block and a speaker prefix are not words
        of the story."""
        text = (
            "Gamemaster: <think>Roll Ward.</think>The bell tolls.\n"
            "🎲 **Ward** · Bram · 2d6 → 9 · **success**\n"
            "🕒 **Alarm raised** 2/6\nBram runs."
        )
        assert excerpt(text) == "The bell tolls. Bram runs."

    def test_markdown_marks_are_left_out(self) -> None:
        """Emphasis, code, headings and quotes lose their marks, never an inner underscore."""
        text = "# Night\n> *The gate* groans; __slowly__ a `rope_end` ~~snaps~~ falls."
        assert excerpt(text) == "Night The gate groans; slowly a rope_end snaps falls."

    def test_a_reply_that_is_all_tags_has_none(self) -> None:
        """Nothing but receipts: no excerpt at all."""
        assert excerpt('[clock: name="Dawn" tick="1" result="ok" now="1/4"]\n') == ""

    def test_only_the_start_is_read(self) -> None:
        """A reply of any length: its first words come from its first `SCAN_CHARS`."""
        assert excerpt("Dawn breaks. " + "x" * (10 * SCAN_CHARS)).startswith("Dawn breaks.")
        assert excerpt(" " * SCAN_CHARS + "Late words.") == ""

    def test_a_tag_cut_at_the_end_of_what_is_read_is_left_out(self) -> None:
        """A reply of a megabyte of receipts has no excerpt: the tag its first `SCAN_CHARS`
        cut in two is not narration, wherever the cut falls."""
        tag = '[clock: name="Alarm raised" tick="1" result="ok" now="1/6"] '
        for lead in range(len(tag)):
            assert excerpt("x" * lead + " " + tag * (2 * SCAN_CHARS // len(tag))) in (
                "",
                "x" * lead,
            )


class TestShorten:
    def test_short_text_is_whole(self) -> None:
        """Text that fits is kept as it is, with no ellipsis."""
        assert shorten("The gate holds.") == "The gate holds."

    def test_cut_at_a_word_with_an_ellipsis(self) -> None:
        """A long narration ends at a word's end, its last comma dropped, then "…"."""
        said = shorten("one two, three four five", 15)
        assert said == "one two, three…"
        assert shorten("one two, three four five", 10) == "one two…"

    def test_one_long_word_is_cut_between_characters(self) -> None:
        """A word longer than half the room is cut inside, never inside a character cluster."""
        flags = "🇪🇸" * 20
        said = shorten(flags, 9)
        assert said.endswith(ELLIPSIS) and said[:-1] == "🇪🇸" * 4

    @given(
        st.lists(
            st.sampled_from(
                [
                    " ",
                    "  ",
                    "\n",
                    "\t",
                    "word",
                    "é",
                    "**",
                    "_",
                    "`",
                    "~~",
                    "# ",
                    "> ",
                    "- ",
                    "[",
                    '[clock: name="A" tick="1"]',
                    "\n🎲 **Ward** · 2d6 → 7\n",
                    "x_y",
                ]
            ),
            max_size=900,
        ).map("".join)
    )
    def test_the_start_cleaned_is_the_whole_cleaned(self, text: str) -> None:
        """Only the start a reply's words need is cleaned: the excerpt is the whole
        narration's, shortened, whatever marks and spaces the cut falls in."""
        assert excerpt(text) == shorten(narration(text))

    @given(st.text(max_size=400))
    def test_never_longer_than_the_limit(self, text: str) -> None:
        """Any text: at most `EXCERPT_CHARS` characters, one line, no tag left."""
        said = excerpt(text)
        assert len(said) <= EXCERPT_CHARS and "\n" not in said
        assert said == said.strip()
