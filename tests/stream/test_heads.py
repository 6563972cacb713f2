"""gmtags/stream/heads.py: where a tag head may still begin, against `regex`'s partial match."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.stream.heads import CANDIDATE, open_head
from gmtags.tags.scan import HEAD

PARTIAL_HEAD = regex.compile(HEAD.pattern)
"""`HEAD` on the `regex` engine, which can tell a partial match: the oracle."""

# Pieces of heads, their near misses, and characters whose case folding is not ASCII's:
# ſ folds to s, the Kelvin sign (U+212A) to k, İ lowers to two characters.
ALPHABET = [
    *"[[[ \t:\nxX_",
    *"skillchetoSKILLCHETO",
    "ſ",
    "\u212a",
    "İ",
    "é",
    "skill_check",
    "sheet",
    "clock",
    "Clock",
]
TEXTS = st.lists(st.sampled_from(ALPHABET), max_size=16).map("".join)


def partial_heads(text: str) -> list[int]:
    """Every position where `HEAD` matches only partially (the oracle)."""
    return [
        i
        for i in range(len(text))
        if (match := PARTIAL_HEAD.match(text, i, partial=True)) is not None and match.partial
    ]


class TestOpenHead:
    @settings(max_examples=1500, deadline=None)
    @given(text=TEXTS)
    def test_equals_the_partial_match(self, text: str) -> None:
        """`open_head` finds exactly the one position where `HEAD` matches partially, if any."""
        assert partial_heads(text) == ([] if open_head(text) < 0 else [open_head(text)])

    @pytest.mark.parametrize(
        ("text", "start"),
        [
            ("[", 0),
            ("a [sk", 2),
            ("[SKILL_ch", 0),
            ("[clock \t ", 0),
            ("[[cl", 1),
            ("[clock:", -1),
            ("[clo ck", -1),
            ("[ clock", -1),
            ("[ſheet", -1),
            ("[cloc\u212a", -1),
            ("[c\n", -1),
        ],
    )
    def test_examples(self, text: str, start: int) -> None:
        """A head's start held at the end is found; a complete head or a near miss is not."""
        assert open_head(text) == start


class TestCandidate:
    @settings(max_examples=1500, deadline=None)
    @given(text=TEXTS)
    def test_false_only_where_no_head_can_begin(self, text: str) -> None:
        """Where `CANDIDATE` finds nothing, no `[` begins a head, whole or partial."""
        if CANDIDATE.search(text) is None:
            assert HEAD.search(text) is None
            assert partial_heads(text) == []

    @pytest.mark.parametrize(
        ("text", "found"),
        [("[OOC: aside]", False), ("[1] [a](b)", False), ("x [", True), ("[sheet", True)],
    )
    def test_examples(self, text: str, found: bool) -> None:
        """Brackets no tag name can follow are ruled out; a name's initial or the end is not."""
        assert (CANDIDATE.search(text) is not None) is found


class TestWholeHead:
    @settings(max_examples=1500, deadline=None)
    @given(text=TEXTS)
    def test_finds_what_head_finds(self, text: str) -> None:
        """The stdlib `HEAD` finds a head exactly where the `regex` engine does, with its name."""
        ours, theirs = HEAD.search(text), PARTIAL_HEAD.search(text)
        if theirs is None:
            assert ours is None
        else:
            assert ours is not None
            assert (ours.span(), ours["name"]) == (theirs.span(), theirs["name"])
