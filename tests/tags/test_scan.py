"""Finding candidate tag spans (SPEC §2)."""

from __future__ import annotations

import itertools
import re

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.limits import Limits
from gmtags.tags import spell
from gmtags.tags.scan import Span, find_spans

LIMITS = Limits()


def spans(text: str) -> list[tuple[str, str, bool]]:
    return [(s.name, text[s.start : s.end], s.complete) for s in find_spans(text, LIMITS)]


class TestFindSpans:
    def test_three_names_case_insensitive(self) -> None:
        """skill_check, sheet and clock are found in any ASCII case, spaces around the colon."""
        text = '[CLOCK: a="1"] [Sheet :b="2"] [skill_CHECK  :  c="3"]'
        assert [name for name, _, _ in spans(text)] == ["clock", "sheet", "skill_check"]

    def test_other_brackets_are_not_candidates(self) -> None:
        """[OOC: …], [1], links, near-miss names and a space after the bracket are narration."""
        text = '[OOC: x] [1] [a](b) [clocks: a="1"] [ clock: a="1"] [clock] [sheet a="1"]'
        assert spans(text) == []

    def test_long_s_does_not_fold_to_s(self) -> None:
        """Name matching is ASCII-only: "ſheet" (long s) is not "sheet"."""
        assert spans('[ſheet: op="spend"]') == []

    def test_quoted_brackets_stay_inside_the_tag(self) -> None:
        """A quoted value may hold "]" without ending the tag."""
        assert spans('[clock: name="a]b" tick="1"] x') == [
            ("clock", '[clock: name="a]b" tick="1"]', True)
        ]

    def test_unclosed_tag_takes_only_what_it_can_read(self) -> None:
        """Without a closing bracket the span ends after the readable attributes."""
        assert spans('[clock: name="A" size="6" The guards shout.') == [
            ("clock", '[clock: name="A" size="6"', False)
        ]

    def test_garbage_inside_brackets_is_left_to_the_grammar(self) -> None:
        """A bracketed tag with garbage has the shape of a tag; the grammar refuses it later."""
        assert spans('[clock: name="A" tick=2] after') == [
            ("clock", '[clock: name="A" tick=2]', True)
        ]

    def test_unterminated_quote_ends_at_the_bracket(self) -> None:
        """A tag whose quote never closes still ends at the next "]" on its line."""
        assert spans('[clock: name="A tick=2] after') == [
            ("clock", '[clock: name="A tick=2]', False)
        ]

    def test_broken_tag_does_not_reach_into_the_next_tag(self) -> None:
        """An unterminated quote stops at a "[" so the next tag is found on its own."""
        text = '[clock: name="A tick="1" [clock: name="B" tick="1"]'
        found = spans(text)
        assert found[-1] == ("clock", '[clock: name="B" tick="1"]', True)
        assert len(found) == 2

    def test_tag_broken_over_a_line_is_hidden_whole(self) -> None:
        """SPEC §2: a tag lies on one line, so a line break inside a quote makes it malformed;
        §2.1, never half hidden: the next line, up to the bracket that closes it, goes too."""
        assert spans('[clock: name="A\nB" size="4"] after') == [
            ("clock", '[clock: name="A\nB" size="4"]', False)
        ]
        assert spans('[clock: name="A"\nsize="4"]\nafter') == [
            ("clock", '[clock: name="A"\nsize="4"]', False)
        ]

    def test_a_next_line_of_narration_is_not_taken(self) -> None:
        """Only attributes and a closing bracket continue a broken tag: narration stays."""
        assert spans('[clock: name="A"\nThe guards shout.]') == [
            ("clock", '[clock: name="A"', False)
        ]
        assert spans('[clock: name="A\nB" said the guard.') == [("clock", "[clock:", False)]

    def test_length_limit(self) -> None:
        """A tag longer than the limit from "[" to "]" is not complete."""
        long_value = "x" * 5000
        found = list(find_spans(f'[clock: name="{long_value}"]', LIMITS))
        assert len(found) == 1 and not found[0].complete
        assert found[0].end - found[0].start <= LIMITS.tag_length

    def test_spans_never_overlap(self) -> None:
        """Spans come in order and never overlap."""
        text = '[clock: a="1"][clock: b="2"] [sheet: [clock: c="3"]'
        found: list[Span] = list(find_spans(text, LIMITS))
        assert all(a.end <= b.start for a, b in itertools.pairwise(found))


class TestHeadLength:
    def test_head_longer_than_the_tag_length_is_narration(self) -> None:
        """SPEC §2 bounds a tag from `[` to `]`, head included: a longer head is no tag."""
        text = "[clock" + " " * 20 + ': a="1"]'
        assert list(find_spans(text, Limits(tag_length=16))) == []
        assert spans(text) == [("clock", text, True)]


# Issue 16: the scanner's patterns run on the standard library's engine; they were written
# for the `regex` module, and both engines must read them alike.
_TRICKY = st.text(
    alphabet=st.sampled_from(list('[]:="“” \t\r\nabcklkSKHEC_lock sheet skill_check clear\u2028é')),
    max_size=120,
)


class TestBothEngines:
    @settings(max_examples=300, deadline=None)
    @given(text=_TRICKY, start=st.integers(min_value=0, max_value=120))
    def test_every_pattern_matches_alike(self, text: str, start: int) -> None:
        """Each of the scanner's patterns matches the same span in both engines, anywhere."""
        for pattern in (spell.HEAD, spell.WIDE_HEAD, spell.BODY, spell.READABLE, spell.CLOSE):
            ours = re.compile(pattern.pattern).match(text, start)
            theirs = regex.compile(pattern.pattern).match(text, start)
            assert (ours and ours.span()) == (theirs and theirs.span()), pattern.pattern

    @settings(max_examples=300, deadline=None)
    @given(text=_TRICKY)
    def test_heads_found_alike(self, text: str) -> None:
        """Searching for heads finds the same ones in both engines."""
        ours = [m.span() for m in spell.HEAD.finditer(text)]
        assert ours == [m.span() for m in regex.compile(spell.HEAD.pattern).finditer(text)]


class TestMayBecomeHead:
    @settings(max_examples=500, deadline=None)
    @given(
        rest=st.text(
            alphabet=st.sampled_from([*"sSkKiIlLcChHeEtToO_-\\:：x[", " ", "\t", "\u00a0"]),
            max_size=16,
        )
    )
    def test_it_agrees_with_the_partial_match(self, rest: str) -> None:
        """`may_become_head` says what `PARTIAL_HEAD` says of `[` + rest: a head still being
        written (the stream holds it) or not."""
        partial = spell.PARTIAL_HEAD.match("[" + rest, partial=True)
        assert spell.may_become_head(rest) == (partial is not None and partial.partial)
