"""Receipts: the tag as the engine rewrites it, and what a model may not write (SPEC §2, §3)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Limits, load_ruleset, process
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.card import Pairs
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS, Receipt, refused, render_tag
from gmtags.tags.scan import find_spans
from gmtags.tags.spell import TAG_NAMES
from gmtags.text import clean_value
from tests.conftest import FIXTURES

LIMIT = DEFAULT_LIMITS.receipt_value_length
TAG_LENGTH = DEFAULT_LIMITS.tag_length
OUTPUTS = ("result", "reason", "now", "raw")
"""The attributes `render_tag` keeps at the end when it has to leave some out."""


def read_back(text: str, name: str) -> list[tuple[str, str | None]]:
    """The attributes of `text`, which must scan as exactly one complete, well-formed tag."""
    spans = list(find_spans(text, DEFAULT_LIMITS))
    assert len(spans) == 1, spans
    (span,) = spans
    assert (span.start, span.end, span.name, span.complete) == (0, len(text), name, True)
    tag = parse_span(text, span, frozenset())
    assert not tag.malformed, text
    return [(attr.key, attr.value) for attr in tag.attrs]


def cleaned(attrs: Pairs) -> list[tuple[str, str | None]]:
    """The attributes as a receipt writes them: every value cleaned and cut."""
    return [(key, None if value is None else clean_value(value, LIMIT)) for key, value in attrs]


def uncut_length(name: str, attrs: list[tuple[str, str | None]]) -> int:
    """How long `[name: …]` is with every (already cleaned) attribute written."""
    parts = [key if value is None else f'{key}="{value}"' for key, value in attrs]
    return len(f"[{name}: {' '.join(parts)}]") if parts else len(f"[{name}:]")


def filled_to(length: int) -> list[tuple[str, str | None]]:
    """Bare flags making `[clock: …]` exactly `length` characters long."""
    flags = [f"f{i:04d}" for i in range((length - 8) // 6)]
    short = length - uncut_length("clock", [(flag, None) for flag in flags])
    while short < 2:
        short += len(flags.pop()) + 1
    flags.append("x" * (short - 1))
    attrs: list[tuple[str, str | None]] = [(flag, None) for flag in flags]
    assert uncut_length("clock", attrs) == length
    return attrs


# Strategies following the grammar: identifier keys, any text as values.
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True).filter(
    lambda key: key.lower() not in OUTPUTS
)
HOSTILE = st.sampled_from(
    [*'"[]\n\r\t\x00\x1b\x7f\x85 ', "\u201c", "\u201d", "\u2028", "\u2029", "\u00a0", "\ud800"]
)
VALUES = st.one_of(
    st.none(),
    st.text(st.one_of(HOSTILE, st.characters()), max_size=40),
    st.builds(lambda c, n: c * n, st.sampled_from(['"', "a", "a ", "[", "é"]), st.integers(0, 600)),
)
ECHO = st.lists(st.tuples(KEYS, VALUES), max_size=30, unique_by=lambda pair: pair[0].lower())
TAIL = st.lists(
    st.tuples(st.sampled_from(OUTPUTS), st.text(st.one_of(HOSTILE, st.characters()), max_size=300)),
    max_size=4,
    unique_by=lambda pair: pair[0],
)


class TestEngineAttrs:
    def test_every_tag_has_its_set(self) -> None:
        """Each tag name the scanner knows has the set of attributes only the engine writes."""
        assert set(ENGINE_ATTRS) == set(TAG_NAMES)

    @pytest.mark.parametrize("name", TAG_NAMES)
    def test_result_reason_now_and_raw_are_the_engines(self, name: str) -> None:
        """SPEC §2: no tag may arrive with its own result, reason, now or raw."""
        assert set(OUTPUTS) <= ENGINE_ATTRS[name]

    def test_check_outputs_are_the_engines(self) -> None:
        """A check cannot arrive with its own rolls, totals, successes, symbols or outcome."""
        written = {"rolls", "used", "total", "successes", "symbols", "outcome", "exact"}
        assert written <= ENGINE_ATTRS["skill_check"]
        assert not {"skill", "dc", "who", "with", "bonus", "spend"} & ENGINE_ATTRS["skill_check"]

    @pytest.mark.parametrize("name", TAG_NAMES)
    def test_keys_are_lower_case(self, name: str) -> None:
        """The parser compares lower-cased keys, so `zeroDice` must be listed as `zerodice`."""
        assert all(key == key.lower() for key in ENGINE_ATTRS[name])


class TestRenderTag:
    def test_no_attributes(self) -> None:
        """A receipt without attributes is `[name:]`, which parses as an empty tag."""
        assert render_tag("clock", []) == "[clock:]"
        assert read_back("[clock:]", "clock") == []

    def test_layout(self) -> None:
        """Attributes keep their order; values take straight quotes; a None value is a bare flag."""
        text = render_tag("clock", [("name", "Alarm"), ("clear", None), ("result", "ok")])
        assert text == '[clock: name="Alarm" clear result="ok"]'

    def test_empty_value_stays_a_pair(self) -> None:
        """An empty value is written `key=""`, not dropped and not turned into a flag."""
        text = render_tag("skill_check", [("symbols", ""), ("result", "failure")])
        assert text == '[skill_check: symbols="" result="failure"]'
        assert read_back(text, "skill_check") == [("symbols", ""), ("result", "failure")]

    @pytest.mark.parametrize(
        ("value", "written"),
        [
            ('say "hi"', "say hi"),
            ("\u201cAlarm\u201d", "Alarm"),
            ("[sheet: op=x]", "sheet: op=x"),
            ("a\nb\r\nc\td", "a b c d"),
            ("a\x00b\x1bc\x7fd\x85e", "a b c d e"),
            ("a\u2028b\u2029c", "a b c"),
            ("  padded   out  ", "padded out"),
            ("a\u00a0b", "a b"),
            ('"[]"\n', ""),
        ],
    )
    def test_values_are_cleaned(self, value: str, written: str) -> None:
        """Quotes, brackets, control characters and line breaks become one space; edges trim."""
        text = render_tag("clock", [("name", value)])
        assert text == f'[clock: name="{written}"]'
        assert read_back(text, "clock") == [("name", written)]

    def test_clean_values_are_untouched(self) -> None:
        """A value needing no cleaning is written exactly: accents, symbols, single spaces."""
        value = "Ćwiczenie 3/8 +2 temp: → ü ß 🎲 {x} 'q' <b>"
        assert render_tag("sheet", [("note", value)]) == f'[sheet: note="{value}"]'

    def test_long_value_is_cut(self) -> None:
        """A 10,000-character value is cut to the receipt value length."""
        text = render_tag("clock", [("name", "n" * 10_000)])
        assert text == f'[clock: name="{"n" * LIMIT}"]'

    def test_cut_leaves_no_trailing_space(self) -> None:
        """A value cut just after a space loses the space too."""
        value = "a" * (LIMIT - 1) + " " + "b" * 50
        assert read_back(render_tag("clock", [("name", value)]), "clock") == [
            ("name", "a" * (LIMIT - 1))
        ]

    def test_cleaning_comes_before_the_cut(self) -> None:
        """10,000 quotes then a word fold to one space first, so the word survives."""
        assert read_back(render_tag("clock", [("name", '"' * 10_000 + "Alarm")]), "clock") == [
            ("name", "Alarm")
        ]


class TestTagLength:
    def test_exactly_at_the_limit_is_kept_whole(self) -> None:
        """A receipt of exactly the tag length loses nothing."""
        attrs = filled_to(TAG_LENGTH)
        assert read_back(render_tag("clock", attrs), "clock") == attrs

    def test_one_over_the_limit_is_cut_to_fit(self) -> None:
        """One character over, an echoed attribute goes and the receipt fits again."""
        attrs = filled_to(TAG_LENGTH + 1)
        text = render_tag("clock", [*attrs, ("result", "ok")])
        assert len(text) <= TAG_LENGTH
        back = read_back(text, "clock")
        assert back[-1] == ("result", "ok") and len(back) < len(attrs)

    def test_engine_outputs_survive_a_huge_echo(self) -> None:
        """Forty 10,000-character values are cut to fit; result, reason, now and raw all stay."""
        echo = [(f"k{i}", "v" * 10_000) for i in range(40)]
        tail = [("result", "refused"), ("reason", "malformed"), ("now", "x"), ("raw", "r" * 999)]
        text = render_tag("sheet", [*echo, *tail])
        assert len(text) <= TAG_LENGTH
        back = read_back(text, "sheet")
        assert back[-4:] == cleaned(tuple(tail))
        assert back[:-4] == cleaned(tuple(echo))[: len(back) - 4]

    def test_the_last_echoed_attributes_are_the_ones_left_out(self) -> None:
        """What stays of the echo is the attributes the model wrote first, with no gap."""
        echo = [*[(f"k{i}", "x" * LIMIT) for i in range(16)], ("big", "y" * LIMIT), ("z", None)]
        text = render_tag("clock", [*echo, ("result", "refused"), ("reason", "malformed")])
        kept = [key for key, _ in read_back(text, "clock")][:-2]
        assert kept == [key for key, _ in echo][: len(kept)]


class TestRenderTagProperties:
    @settings(max_examples=100, deadline=None)
    @given(name=st.sampled_from(TAG_NAMES), echo=ECHO, tail=TAIL)
    def test_any_receipt_scans_again_as_one_tag(
        self, name: str, echo: list[tuple[str, str | None]], tail: list[tuple[str, str]]
    ) -> None:
        """Any values: the receipt is one complete span and parses back to the cleaned values."""
        attrs = (*echo, *tail)
        text = render_tag(name, attrs)
        assert len(text) <= TAG_LENGTH and "\n" not in text
        back = read_back(text, name)
        want = cleaned(attrs)
        if uncut_length(name, want) <= TAG_LENGTH:
            assert back == want
        else:
            # Cut to fit: the engine's outputs all stay, at the end; the rest is echo, in order.
            assert back[len(back) - len(tail) :] == want[len(echo) :]
            head = iter(want[: len(echo)])
            assert all(pair in head for pair in back[: len(back) - len(tail)])

    @settings(max_examples=50, deadline=None)
    @given(echo=ECHO, before=st.text(st.sampled_from("ab .\n[]:\"'")), after=st.text(max_size=20))
    def test_receipt_in_narration_is_found_where_it_was_put(
        self, echo: list[tuple[str, str | None]], before: str, after: str
    ) -> None:
        """Placed inside any narration, a receipt is found whole at its own position."""
        text = render_tag("clock", [*echo, ("result", "ok")])
        found = [s for s in find_spans(before + text + after, DEFAULT_LIMITS) if s.complete]
        assert any((s.start, s.end) == (len(before), len(before) + len(text)) for s in found)

    @settings(max_examples=50, deadline=None)
    @given(name=st.sampled_from(TAG_NAMES), echo=ECHO, tail=TAIL)
    def test_rendering_is_a_fixed_point(
        self, name: str, echo: list[tuple[str, str | None]], tail: list[tuple[str, str]]
    ) -> None:
        """Rendering what a receipt parses back to gives the same receipt again."""
        text = render_tag(name, (*echo, *tail))
        assert render_tag(name, read_back(text, name)) == text


class TestReceipt:
    SAMPLE: Pairs = (("name", "Alarm"), ("clear", None), ("result", "ok"), ("now", "cleared"))

    def make(self, outputs: Pairs = SAMPLE) -> Receipt:
        return Receipt("clock", (("name", "Alarm"), ("clear", None)), outputs, "«Alarm cleared»")

    def test_text_is_rendered_once_from_the_outputs(self) -> None:
        """`text` and `render()` are the outputs rendered as a tag."""
        receipt = self.make()
        assert receipt.text == receipt.render() == render_tag("clock", self.SAMPLE)
        assert receipt.text == '[clock: name="Alarm" clear result="ok" now="cleared"]'

    def test_result_reason_and_attr(self) -> None:
        """`result`, `reason` and `attr` read the outputs; a flag or an absent key reads None."""
        receipt = self.make()
        assert (receipt.result, receipt.reason) == ("ok", None)
        assert (receipt.attr("now"), receipt.attr("clear"), receipt.attr("size")) == (
            "cleared",
            None,
            None,
        )

    def test_no_result_reads_empty(self) -> None:
        """A receipt without `result=` reports the empty string, never None."""
        assert self.make((("name", "A"),)).result == ""

    def test_as_dict(self) -> None:
        """The JSON view names the tag and maps inputs and outputs by key."""
        assert self.make().as_dict() == {
            "tag": "clock",
            "inputs": {"name": "Alarm", "clear": None},
            "outputs": {"name": "Alarm", "clear": None, "result": "ok", "now": "cleared"},
        }

    def test_receipt_is_frozen(self) -> None:
        """A receipt cannot be changed once made, text included."""
        receipt = self.make()
        with pytest.raises(dataclasses.FrozenInstanceError):
            receipt.card = "other"  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            receipt.text = "other"  # type: ignore[misc]

    def test_hostile_outputs_render_cleaned(self) -> None:
        """Outputs holding quotes and brackets still render as one tag; the outputs are kept."""
        receipt = self.make((("name", 'a"]b'), ("result", "ok")))
        assert read_back(receipt.text, "clock") == [("name", "a b"), ("result", "ok")]
        assert receipt.attr("name") == 'a"]b'


class TestRefused:
    def test_echo_then_result_and_reason(self) -> None:
        """The echoed attributes come first, then `result="refused" reason=…`."""
        echo: Pairs = (("name", "Alarm"), ("tick", "x"))
        receipt = refused("clock", echo, echo, "invalid-value")
        assert receipt.outputs == (*echo, ("result", "refused"), ("reason", "invalid-value"))
        assert receipt.inputs == echo
        assert (receipt.result, receipt.reason) == ("refused", "invalid-value")
        assert (
            receipt.text == '[clock: name="Alarm" tick="x" result="refused" reason="invalid-value"]'
        )

    def test_card_says_why_in_words(self) -> None:
        """The card says what was refused and why, naming what the receipt names (SPEC §7.3)."""
        assert refused("clock", (), (), "too-many").card == (
            "⚠️ clock refused: too many commands in one reply"
        )
        echo: Pairs = (("who", "Bram"), ("op", "note"), ("field", "hp"))
        assert refused("sheet", echo, echo, "unknown-field").card == (
            '⚠️ sheet refused: no field "hp" for "Bram"'
        )

    def test_echo_may_differ_from_inputs(self) -> None:
        """What is echoed is chosen by the caller; the inputs are kept as given."""
        receipt = refused("clock", (("name", "A"),), (("raw", "x"),), "malformed")
        assert receipt.inputs == (("name", "A"),)
        assert receipt.text == '[clock: raw="x" result="refused" reason="malformed"]'

    def test_huge_echo_still_ends_with_the_refusal(self) -> None:
        """However much is echoed, the refused receipt fits and keeps its result and reason."""
        echo = tuple((f"k{i}", "v" * 10_000) for i in range(100))
        text = refused("sheet", echo, echo, "malformed").text
        assert len(text) <= TAG_LENGTH
        assert read_back(text, "sheet")[-2:] == [("result", "refused"), ("reason", "malformed")]

    def test_a_malformed_tag_keeps_its_readable_attributes(self) -> None:
        """SPEC §2: a tag that does not parse is refused, keeping every pair that could be read."""
        rules = load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")
        result = process('Run! [clock: name="Alarm" tick=2 3 size="6"] Now.', rules, seed=1)
        (receipt,) = result.receipts
        assert (receipt.result, receipt.reason) == ("refused", "malformed")
        assert receipt.attr("name") == "Alarm" and receipt.attr("size") == "6"
        assert receipt.text.startswith('[clock: name="Alarm" size="6" raw=')
        assert result.text.endswith(" Now.") and result.text.startswith("Run! [clock:")


class TestLimitsPassedDown:
    RULES = "checks/two-d6.json"
    TAG = '[skill_check: skill="Climbing the very tall tower of the king" dc="5" who="A stranger"]'

    def test_receipt_values_honour_the_limits_given(self) -> None:
        """Values in a receipt are cut to the `receipt_value_length` passed to `process`."""
        rules = load_ruleset(FIXTURES / "rulesets" / self.RULES)
        limits = Limits(receipt_value_length=10)
        (receipt,) = process(self.TAG, rules, seed=1, limits=limits).receipts
        assert all(len(value) <= 10 for _, value in read_back(receipt.text, "skill_check") if value)

    def test_receipt_scans_as_one_tag_under_the_limits_given(self) -> None:
        """A receipt fits the `tag_length` passed to `process`, so it scans again as one tag."""
        rules = load_ruleset(FIXTURES / "rulesets" / self.RULES)
        limits = Limits(tag_length=120)
        result = process(self.TAG, rules, seed=1, limits=limits)
        (span,) = find_spans(result.text, limits)
        assert span.complete and (span.start, span.end) == (0, len(result.text))
