"""Parsing one span with the Lark grammar (SPEC §2)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.limits import Limits
from gmtags.tags.parse import Attr, _parsed, parse_span, parsed_by_lark, parser
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans


def parse(text: str, name: str = "clock"):  # type: ignore[no-untyped-def]
    (span,) = list(find_spans(text, Limits()))
    return parse_span(text, span, ENGINE_ATTRS[name])


class TestGrammar:
    def test_grammar_builds_in_strict_mode(self) -> None:
        """The grammar has no colliding terminals (Lark strict=True)."""
        tree = parser(strict=True).parse('[clock: name="A" clear]')
        assert tree == [Attr("name", "A"), Attr("clear", None)]

    def test_pairs_and_flags_in_order(self) -> None:
        """Attributes keep the order the model wrote them in."""
        tag = parse('[clock: name="A" clear tick="2"]')
        assert tag.attrs == (Attr("name", "A"), Attr("clear", None), Attr("tick", "2"))
        assert not tag.malformed

    def test_curly_quotes(self) -> None:
        """Curly and straight quotes both delimit a value."""
        tag = parse('[clock: name=\u201cAlarm\u201d size=\u201d6"]')
        assert tag.get("name") == "Alarm" and tag.get("size") == "6"

    def test_keys_are_case_insensitive_for_lookup(self) -> None:
        """`get` finds an attribute whatever case the model wrote its key in."""
        tag = parse('[clock: NAME="A"]')
        assert tag.get("name") == "A" and tag.has("Name")

    def test_engine_attributes_are_discarded(self) -> None:
        """result, now and reason written by the model are dropped and named."""
        tag = parse('[clock: name="A" result="ok" Now="6/6" reason="x" tick="1"]')
        assert [a.key for a in tag.attrs] == ["name", "tick"]
        assert tag.discarded == ("result", "Now", "reason")

    def test_check_result_attributes_are_discarded(self) -> None:
        """A check cannot arrive with its own rolls, total or outcome."""
        tag = parse(
            '[skill_check: skill="Ward" rolls="20" total="30" outcome="Great"]', "skill_check"
        )
        assert [a.key for a in tag.attrs] == ["skill"]

    def test_unquoted_value_is_recovered(self) -> None:
        """SPEC §2.1: `tick=2` is not the grammar's, but an unquoted one-word value is read."""
        tag = parse('[clock: name="A" tick=2]')
        assert not tag.malformed and tag.attrs == (Attr("name", "A"), Attr("tick", "2"))
        assert tag.recovered == ("unquoted",)

    def test_two_unquoted_words_are_malformed(self) -> None:
        """`tick=2 ticks`: a second bare word is not guessed at; the readable pairs are kept."""
        tag = parse('[clock: name="A" tick=2 ticks]')
        assert tag.malformed and tag.attrs == (Attr("name", "A"),)

    def test_duplicate_attribute_is_malformed(self) -> None:
        """Two values for one key cannot be told apart: the tag is malformed."""
        tag = parse('[clock: name="A" Name="B"]')
        assert tag.malformed

    def test_empty_body_parses(self) -> None:
        """`[clock:]` parses with no attributes (the handler refuses it)."""
        tag = parse("[clock:]")
        assert not tag.malformed and tag.attrs == ()


class TestSurrogates:
    def test_a_lone_half_in_a_tag_reads_as_a_replacement_character(self) -> None:
        """A lone UTF-16 half inside a tag reads as U+FFFD (no model can hold it), so the command
        applies instead of failing; the narration around keeps its own half as it was."""
        from gmtags import load_ruleset, process
        from tests.conftest import FIXTURES

        ruleset = load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")
        result = process('a \ud83d [clock: name="A\ud83d" size="4"] b', ruleset, seed=1)
        assert result.text == 'a \ud83d [clock: name="A\ufffd" size="4" result="ok" now="0/4"] b'


class TestParseCache:
    """Issue 16: the parse of a tag text is kept; what depends on more than the text is not."""

    def test_a_tag_written_again_reads_the_same(self) -> None:
        text = '[skill_check: skill="Stealth" dc="15" result="ok"]'
        first, again = parse(text, "skill_check"), parse(text, "skill_check")
        assert first == again and first.discarded == ("result",)

    def test_the_engine_attributes_are_the_callers(self) -> None:
        """One text, two tag kinds' engine attributes: each discards its own."""
        text = '[clock: name="A" total="3"]'
        (span,) = list(find_spans(text, Limits()))
        as_clock = parse_span(text, span, ENGINE_ATTRS["clock"])
        as_check = parse_span(text, span, ENGINE_ATTRS["skill_check"])
        assert as_clock.has("total") != as_check.has("total")

    def test_a_malformed_tag_stays_malformed(self) -> None:
        text = '[clock: name="A" name="B"]'
        assert parse(text).malformed and parse(text).malformed
        broken = '[clock: name="A" tick=]'
        assert parse(broken).malformed and parse(broken).get("name") == "A"


# Issue 16: tags are read with the grammar's own terminals; Lark's parser is the reference.
_PIECES = st.sampled_from(
    [
        "[", "]", ":", "=", '"', "\u201c", "\u201d", " ", "\t", "\r", "\n", "a", "Z", "_", "9",
        "é", "ſ", "K", "skill_check", "SHEET", "Clock", "clear", 'who="Ada"', 'dc = "15"',
        "\u2028", "[clock:", "[sheet :", '"]"',
    ]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=24).map("".join)


@st.composite
def _tags(draw: st.DrawFn) -> str:
    """Well-formed tags with every spacing, quote and key shape the grammar allows."""
    blank = st.text(alphabet=" \t", max_size=3)
    name = draw(st.sampled_from(["skill_check", "Sheet", "CLOCK", "sheet", "clock"]))
    parts = [f"{draw(blank)}[{name}{draw(blank)}:"]
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True))
        if draw(st.booleans()):
            value = draw(
                st.text(
                    alphabet=st.characters(blacklist_characters='"\u201c\u201d\r\n'), max_size=8
                )
            )
            quotes = draw(st.sampled_from(['""', "\u201c\u201d", '"\u201d', "\u201d\u201c"]))
            pair = f"{key}{draw(blank)}={draw(blank)}{quotes[0]}{value}{quotes[1]}"
            parts.append(draw(blank) + pair)
        else:
            parts.append(" " + draw(blank) + key)
    parts.append(f"{draw(blank)}]{draw(blank)}")
    return "".join(parts)


class TestReadAsLarkParses:
    @settings(max_examples=600, deadline=None)
    @given(raw=_TEXTS)
    def test_any_text(self, raw: str) -> None:
        """Any text at all reads as Lark's parser reads it (None where Lark refuses)."""
        assert _parsed(raw) == parsed_by_lark(raw)

    @settings(max_examples=600, deadline=None)
    @given(raw=_tags())
    def test_well_formed_tags(self, raw: str) -> None:
        assert parsed_by_lark(raw) is not None
        assert _parsed(raw) == parsed_by_lark(raw)

    @settings(max_examples=300, deadline=None)
    @given(raw=_tags(), cut=st.integers(0, 200), junk=_PIECES)
    def test_tags_broken_anywhere(self, raw: str, cut: int, junk: str) -> None:
        """A tag with anything put in anywhere, or cut short, still reads as Lark reads it."""
        cut = min(cut, len(raw))
        for text in (raw[:cut], raw[:cut] + junk + raw[cut:]):
            assert _parsed(text) == parsed_by_lark(text)
