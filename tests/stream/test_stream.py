"""The stream filter (gmtags/stream): any chunking equals `process()` on the whole text."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Limits, ProcessResult, Ruleset, Snapshot, StreamProcessor, load_ruleset, process
from gmtags.limits import DEFAULT_LIMITS
from tests.conftest import FIXTURES

TORCHES_PATH = FIXTURES / "rulesets" / "sheets" / "five-torches.json"
MODES = ("text", "display", "cards")


@cache
def torches() -> Ruleset:
    return load_ruleset(TORCHES_PATH)


def start() -> Snapshot:
    """Two characters (so checks and sheet commands apply) and a clock."""
    cards: dict[str, Any] = {
        "Ada": {"abilities": {"con": 14}, "fields": {"level": 5, "hp_rolled": 20}},
        "Bram the Quiet": {},
    }
    return Snapshot.model_validate(
        {
            "gameCharacterCards": cards,
            "rulesetClocks": [{"name": "Alarm", "size": 6, "filled": 1}],
        }
    )


def expected(result: ProcessResult, mode: str) -> str:
    return {"text": result.text, "display": result.display, "cards": result.cards}[mode]


def stream(
    text: str, cuts: list[int], mode: str, seed: int = 7, limits: Limits = DEFAULT_LIMITS
) -> tuple[str, StreamProcessor]:
    """Feed `text` cut at `cuts` through a processor in `mode`; the whole output and it."""
    processor = StreamProcessor(
        torches(),
        start(),
        seed,
        display=mode == "display",
        cards=mode == "cards",
        limits=limits,
    )
    bounds = [0, *sorted(set(cuts)), len(text)]
    out = [processor.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    out.append(processor.close())
    return "".join(out), processor


WORDS = [
    *list("abc XYZ.,:=\t[]\"'“”{}"),
    "\n",
    "\r\n",
    "\r",
    " ",
    "  ",
    "é",
    "ß",
    "→",
    "🎲",
    "\u2028",
    "\u3000",
    "\u00a0",
    "\x85",
    "e\u0301",
    "👩\u200d🚀",
    "clock",
    "sheet",
    # SPEC §2.1: what may wrap a tag, its variant spellings, and reasoning.
    "*",
    "**",
    "_",
    "`",
    "```",
    "```text\n",
    "~~~",
    "\\",
    "［",
    "］",
    "：",
    "'",
    "<think>",
    "</think>",
    "<thi",
    "<reasoning>",
    "skill-check",
]
NARRATION = st.lists(st.sampled_from(WORDS), max_size=30).map("".join)
NEAR_MISSES = st.sampled_from(
    [
        "[",
        "[c",
        "[clo",
        "[sheet",
        "[SKILL_ch",
        "[clock ",
        "[clock\t \n",
        '[clockx: a="1"]',
        "[clocks:",
        '[ clock: a="1"]',
        "[OOC: aside]",
        "[OOC:",
        "[1]",
        "[a](b)",
        "[sheet]",
        '[ſheet: op="spend"]',
        '[[clock: name="Alarm" tick="1"]]',
    ]
)
VALID_TAGS = st.sampled_from(
    [
        '[clock: name="Alarm" tick="1"]',
        "[Clock : name=“Alarm” tick=”2”]",
        '[clock: name="Gate" size="4"]',
        '[clock: name="Alarm" clear]',
        '[sheet: op="spend" pool="hp" amount="3" who="Ada"]',
        '[SHEET: op="restore" pool="hp" amount="1"]',
        '[sheet: op="damage" pool="hp" amount="2" who="Bram the Quiet"]',
        '[skill_check: skill="athletics" dc="12" who="Ada"]',
        '[skill_check: skill="stealth" dc="10" result="success" total="99"]',
        '[skill_CHECK:skill="arcana" dc="15" who="Bram the Quiet"]',
    ]
)
KEYS = st.sampled_from(["name", "tick", "op", "pool", "amount", "skill", "dc", "who", "clear"])
VALUES = st.text(alphabet=st.sampled_from([*list("Ab 1-é[]"), "“", "\n"]), max_size=6)


@st.composite
def broken_tags(draw: st.DrawFn) -> str:
    """Tags that follow the grammar only partly: stray quotes, brackets, missing ends."""
    quote_open = draw(st.sampled_from(['"', "\u201c", "\u201d"]))
    quote_close = draw(st.sampled_from(['"', "\u201c", "\u201d", ""]))
    attrs = draw(
        st.lists(
            st.one_of(
                st.builds(lambda k, v: f"{k}={quote_open}{v}{quote_close}", KEYS, VALUES),
                KEYS,
                st.sampled_from(["=", "tick=2", '"', "]"]),
            ),
            max_size=4,
        )
    )
    name = draw(st.sampled_from(["clock", "Sheet", "skill_check"]))
    end = draw(st.sampled_from(["]", "", "\n", "\r\n", " [", "]]"]))
    space = draw(st.sampled_from(["", " ", "\t "]))
    return f"[{name}{space}:{' ' + ' '.join(attrs) if attrs else ''}{end}"


VARIANT_TAGS = st.sampled_from(
    [
        "[skill-check: skill='athletics' dc=12 who=Ada]",
        '[Skill Check: skill="stealth", dc="10"]',
        '[skillcheck: skill: "arcana" dc: "15"]',
        '[skill\\_check: skill="athletics" dc="12"]',
        '［clock：name="Alarm" tick="1"］',
        '[clock:\u00a0name="Alarm"\u00a0tick="1"]',
        "[clock: name=Alarm tick=1 extra]",
        '[clock: name="<name>" tick="1"]',
        '[sheet: op="spend" pool="hp" amount="N" who="Ada"]',
    ]
)


@st.composite
def wrapped_tags(draw: st.DrawFn) -> str:
    """A tag as models wrap it (SPEC §2.1): inline code, bold, italics, `\\[ … \\]`, a code
    fence of tags or of tags and more, reasoning; sometimes with the wrapping left unclosed."""
    tag = draw(st.one_of(VALID_TAGS, VARIANT_TAGS, broken_tags()))
    run = draw(st.sampled_from(["`", "**", "*", "***", "_", "__", "``"]))
    close = draw(st.sampled_from([run[::-1], "", run[:1]]))
    kind = draw(st.sampled_from(["wrap", "escape", "fence", "fence2", "fence+", "think"]))
    if kind == "wrap":
        return f"{run}{tag}{close}"
    if kind == "escape":
        return "\\" + tag.removesuffix("]") + ("\\]" if tag.endswith("]") else "")
    fence = draw(st.sampled_from(["```", "```json", "~~~", "````"]))
    end = draw(st.sampled_from(["\n" + fence[:3] + "\n", "\n" + fence[:3], "\n", ""]))
    if kind == "fence":
        return f"{fence}\n{tag}{end}"
    if kind == "fence2":
        return f"{fence}\n{tag}\n\n  {draw(VALID_TAGS)}{end}"
    if kind == "fence+":
        return f"{fence}\n{tag}\nand more{end}"
    opener = draw(st.sampled_from(["<think>", "<THINKING>", "<reasoning>"]))
    closer = draw(st.sampled_from([opener.replace("<", "</"), ""]))
    return f"{opener}{tag}{closer}"


PIECES = st.one_of(
    NARRATION,
    VALID_TAGS,
    broken_tags(),
    NEAR_MISSES,
    VARIANT_TAGS,
    wrapped_tags(),
    st.sampled_from([" ", "\n"]),
)
REPLIES = st.lists(PIECES, max_size=14).map("".join)


@st.composite
def replies_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(REPLIES)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=12))
    return text, cuts


def tricky_cuts(draw: st.DrawFn, text: str) -> list[int]:
    """Cuts where a chunk boundary is hardest: after a `[` (before the tag name), inside
    quoted values, between `\r` and `\n`, at a line's start or a tag's end, and after any
    character that is not ASCII (inside a combining sequence or an emoji ZWJ sequence)."""
    tricky = [
        i + step
        for i, char in enumerate(text)
        if char in '[]\r\n"“”=:*_`\\<>~' or not char.isascii()
        for step in (1, 2)
        if i + step <= len(text)
    ]
    cuts = draw(st.lists(st.sampled_from(tricky), max_size=12)) if tricky else []
    return cuts + draw(st.lists(st.integers(0, len(text)), max_size=4))


@st.composite
def replies_and_tricky_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(REPLIES)
    return text, tricky_cuts(draw, text)


SPACES = st.sampled_from([" ", "  ", "\t", " \t ", "\u3000", "\u00a0", ""])


@st.composite
def display_lines(draw: st.DrawFn) -> str:
    """Lines for display mode's rules: tag-only lines (with whitespace around the tags),
    inline tags with and without a space on either side, tags at a line's start or end."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        parts = [draw(SPACES)]
        for _ in range(draw(st.integers(0, 4))):
            parts.append(
                draw(st.one_of(VALID_TAGS, broken_tags(), NARRATION, NEAR_MISSES, wrapped_tags()))
            )
            parts.append(draw(SPACES))
        lines.append("".join(parts))
    breaks = draw(st.lists(st.sampled_from(["\n", "\r\n", " \n", "\n\n"]), min_size=len(lines)))
    return "".join(line + brk for line, brk in zip(lines, breaks, strict=False))


@st.composite
def display_lines_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(display_lines())
    return text, tricky_cuts(draw, text)


REASONING_HOLD = len("</reasoning>")
"""At most what a reasoning opener or closer still being written holds back (SPEC §2.1)."""
PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestChunkInvariance:
    @PROPERTY
    @given(case=replies_and_cuts(), mode=st.sampled_from(MODES), seed=st.integers(0, 2**32))
    def test_random_cuts_equal_process(
        self, case: tuple[str, list[int]], mode: str, seed: int
    ) -> None:
        """Cut anywhere, the output and the result equal `process()` on the whole text."""
        text, cuts = case
        whole = process(text, torches(), start(), seed=seed)
        out, processor = stream(text, cuts, mode, seed)
        assert out == expected(whole, mode)
        assert processor.result == whole
        assert processor.result.snapshot == whole.snapshot

    @PROPERTY
    @given(case=replies_and_tricky_cuts(), mode=st.sampled_from(MODES))
    def test_tricky_cuts_equal_process(self, case: tuple[str, list[int]], mode: str) -> None:
        """Cut after a `[`, inside a quoted value, inside `\r\n` or a combining or emoji
        sequence, the output and the result still equal `process()`."""
        text, cuts = case
        whole = process(text, torches(), start(), seed=5)
        out, processor = stream(text, cuts, mode, 5)
        assert out == expected(whole, mode)
        assert processor.result == whole

    @PROPERTY
    @given(case=display_lines_and_cuts(), mode=st.sampled_from(MODES))
    def test_line_rules_equal_process(self, case: tuple[str, list[int]], mode: str) -> None:
        """Display mode's line rules (a tag-only line goes, an inline tag takes one space)
        come out as `process().display` for any chunking; the other views agree too."""
        text, cuts = case
        whole = process(text, torches(), start(), seed=9)
        out, processor = stream(text, cuts, mode, 9)
        assert out == expected(whole, mode)
        assert processor.result == whole

    @PROPERTY
    @given(case=replies_and_cuts(), mode=st.sampled_from(MODES), asks=st.sets(st.integers(0, 15)))
    def test_asking_held_changes_nothing(
        self, case: tuple[str, list[int]], mode: str, asks: set[int]
    ) -> None:
        """Reading `held` between chunks (it catches the window up) changes no output."""
        text, cuts = case
        processor = StreamProcessor(
            torches(), start(), 4, display=mode == "display", cards=mode == "cards"
        )
        bounds = [0, *sorted(set(cuts)), len(text)]
        out = []
        for i, (a, b) in enumerate(itertools.pairwise(bounds)):
            if i in asks:
                assert 0 <= processor.held <= a
            out.append(processor.feed(text[a:b]))
        out.append(processor.close())
        assert "".join(out) == expected(process(text, torches(), start(), seed=4), mode)

    @PROPERTY
    @given(text=REPLIES, mode=st.sampled_from(MODES))
    def test_one_character_chunks_equal_process(self, text: str, mode: str) -> None:
        """Fed one character at a time, the output equals `process()` on the whole text."""
        whole = process(text, torches(), start(), seed=7)
        out, processor = stream(text, list(range(len(text))), mode)
        assert out == expected(whole, mode)
        assert processor.result == whole

    @settings(max_examples=150, deadline=None)
    @given(case=replies_and_cuts(), mode=st.sampled_from(MODES), length=st.integers(1, 40))
    def test_tight_tag_length(self, case: tuple[str, list[int]], mode: str, length: int) -> None:
        """With a small tag length limit the spans still match `process()` exactly."""
        text, cuts = case
        limits = Limits(tag_length=length)
        whole = process(text, torches(), start(), seed=7, limits=limits)
        out, processor = stream(text, cuts, mode, limits=limits)
        assert out == expected(whole, mode)
        assert processor.result == whole

    @settings(max_examples=150, deadline=None)
    @given(
        case=replies_and_tricky_cuts(),
        mode=st.sampled_from(["text", "cards"]),
        length=st.integers(1, 40),
    )
    def test_held_stays_within_the_tag_length(
        self, case: tuple[str, list[int]], mode: str, length: int
    ) -> None:
        """Receipts and cards never hold more than the tag length, and still equal `process()`."""
        text, cuts = case
        limits = Limits(tag_length=length)
        processor = StreamProcessor(torches(), start(), 7, cards=mode == "cards", limits=limits)
        out = []
        for a, b in itertools.pairwise([0, *sorted(set(cuts)), len(text)]):
            out.append(processor.feed(text[a:b]))
            assert processor.held <= max(length, REASONING_HOLD)
        out.append(processor.close())
        whole = process(text, torches(), start(), seed=7, limits=limits)
        assert "".join(out) == expected(whole, mode)

    @pytest.mark.parametrize("mode", MODES)
    def test_every_single_cut_of_a_reply(self, mode: str) -> None:
        """Every one-cut and two-cut chunking of a reply with every kind of piece agrees."""
        text = (
            '  Ada “hums”. [skill_check: skill=“athletics” dc="12" who="Ada"] Then\r\n'
            '[clock: name="Alarm" tick="1"]  [sheet: op="spend" pool="hp" amount="1"]\r\n'
            '🎲 [OOC: no] [clock: name="Alarm tick="1" [sheet: op="x"]] end [clo\n'
            '[clock: name="Gate" size="4"'
        )
        whole = expected(process(text, torches(), start(), seed=3), mode)
        for a in range(len(text) + 1):
            assert stream(text, [a], mode, 3)[0] == whole
        for a in range(0, len(text), 5):
            for b in range(a, len(text), 3):
                assert stream(text, [a, b], mode, 3)[0] == whole

    @pytest.mark.parametrize("mode", MODES)
    def test_every_cut_of_display_lines(self, mode: str) -> None:
        """Every one-cut and two-cut chunking of lines that exercise display's rules agrees:
        tag-only lines, a tag ending or starting a line, two tags inline, blank lines."""
        text = (
            ' \t[clock: name="Alarm" tick="1"] \r\n'
            'Ada runs [sheet: op="spend" pool="hp" amount="1"]\n'
            '[clock: name="Alarm" tick="1"] and\t[clock: name="Alarm" tick="1"]\u3000[clock: bad\n'
            "  \n"
            'x [clock: name="Gate" size="4"] [sheet: op="x"] y  \n'
            '[skill_check: skill="athletics" dc="12" who="Ada"]'
        )
        whole = expected(process(text, torches(), start(), seed=3), mode)
        for a in range(len(text) + 1):
            assert stream(text, [a], mode, 3)[0] == whole
        for a in range(0, len(text), 4):
            for b in range(a, len(text), 3):
                assert stream(text, [a, b], mode, 3)[0] == whole

    def test_forty_commands_then_too_many(self) -> None:
        """Past the command limit tags are refused as too-many, as `process()` does."""
        text = 'x [clock: name="Alarm" tick="1"]\n' * 45
        whole = process(text, torches(), start(), seed=1)
        out, processor = stream(text, list(range(0, len(text), 3)), "text", 1)
        assert out == whole.text
        assert processor.result.receipts[-1].reason == "too-many"


class TestNarrationSurvives:
    @PROPERTY
    @given(case=replies_and_tricky_cuts())
    def test_narration_outside_tags_is_byte_for_byte(self, case: tuple[str, list[int]]) -> None:
        """In receipt mode the stream is the response's narration, unchanged, with each
        tag's text swapped for its receipt: nothing else is added, lost or moved."""
        text, cuts = case
        out, processor = stream(text, cuts, "text")
        pos = shown = 0
        for item in processor.result.placed:
            narration = text[pos : item.start]
            assert out[shown : shown + len(narration)] == narration
            shown += len(narration)
            assert out[shown:].startswith(item.receipt.render())
            shown += len(item.receipt.render())
            pos = item.end
        assert out[shown:] == text[pos:]

    @settings(max_examples=300, deadline=None)
    @given(
        text=st.text(max_size=60),
        cuts=st.lists(st.integers(0, 60), max_size=10),
        mode=st.sampled_from(MODES),
    )
    def test_no_text_raises(self, text: str, cuts: list[int], mode: str) -> None:
        """Any text in any chunks, in any view, streams without raising and equals `process()`."""
        cuts = [cut for cut in cuts if cut <= len(text)]
        out, processor = stream(text, cuts, mode)
        whole = process(text, torches(), start(), seed=7)
        assert out == expected(whole, mode)
        assert processor.result == whole


class TestHoldingBack:
    def feeder(self, **options: Any) -> StreamProcessor:
        return StreamProcessor(torches(), start(), 1, **options)

    def test_narration_before_a_bracket_flows_at_once(self) -> None:
        """Narration before a `[` is emitted immediately; the `[` itself is held."""
        processor = self.feeder()
        assert processor.feed("The gate creaks. [") == "The gate creaks. "
        assert processor.feed("cl") == ""
        assert processor.held == 3

    @pytest.mark.parametrize("mode", [{}, {"cards": True}])
    def test_narration_without_a_bracket_passes_straight_through(
        self, mode: dict[str, bool]
    ) -> None:
        """Issue 16: a chunk with no `[` while nothing is held goes out as it came, before and
        after a tag (after a card, once the newline that ends its line is shown: SPEC §7.3),
        and the response is still the one `process()` gives."""
        processor = self.feeder(**mode)
        chunks = ["The gate ", "creaks. ", '[clock: name="Dusk" size="4"]', " Rain", " falls."]
        shown = [processor.feed(chunk) for chunk in chunks]
        after_card = ["\n Rain", " falls."] if mode else chunks[3:]
        assert shown[:2] == chunks[:2] and shown[3:] == after_card
        assert processor.held == 0
        whole = process("".join(chunks), torches(), start(), seed=1)
        assert "".join(shown) + processor.close() == (whole.cards if mode else whole.text)

    @pytest.mark.parametrize("mode", [{}, {"cards": True}, {"display": True}])
    def test_stray_brackets_pass_straight_through(self, mode: dict[str, bool]) -> None:
        """A `[` no tag name can follow (`[OOC`, `[1]`) is narration at once, in every view."""
        processor = self.feeder(**mode)
        assert processor.feed("[OOC") == "[OOC"
        assert processor.feed(": x] [1]") == ": x] [1]"
        assert processor.held == 0

    def test_a_head_cut_into_pieces_is_held_until_it_is_one(self) -> None:
        """`[`, `cl`, `ock` are held as a head's start; the `:` makes a tag, its `]` a receipt."""
        processor = self.feeder()
        assert processor.feed("Bells [") == "Bells "
        assert [processor.feed(piece) for piece in ("cl", "ock", " :")] == ["", "", ""]
        assert processor.held == len("[clock :")
        assert processor.feed(' name="Alarm" tick="1"] on').startswith("[clock: name=")

    def test_a_head_start_that_goes_nowhere_is_released(self) -> None:
        """`[cl` then `ue` is narration: it is shown as soon as it cannot be a head."""
        processor = self.feeder()
        assert processor.feed("A [cl") == "A "
        assert processor.feed("ue]") == "[clue]"
        assert processor.held == 0

    def test_bracket_then_newline_is_released(self) -> None:
        """A `[` that meets a line break cannot be a tag and is released as narration."""
        processor = self.feeder()
        assert processor.feed("[clock") == ""
        assert processor.feed("\nmore") == "[clock\nmore"
        assert processor.held == 0

    def test_ooc_released_as_soon_as_it_cannot_be_a_tag(self) -> None:
        """`[OOC:` is released at the `O`: no tag name starts with it."""
        processor = self.feeder()
        assert processor.feed("[") == ""
        assert processor.feed("O") == "[O"
        assert processor.feed("OC: aside]") == "OC: aside]"

    def test_near_miss_name_is_released(self) -> None:
        """`[clocks` stops being a possible head at the `s`."""
        processor = self.feeder()
        assert processor.feed("[clock") == ""
        assert processor.feed("s") == "[clocks"

    def test_tag_becomes_its_receipt_when_it_closes(self) -> None:
        """In receipt mode a well-formed tag is emitted as its receipt at its `]`."""
        processor = self.feeder()
        assert processor.feed('[clock: name="Alarm" tick="1"') == ""
        assert processor.feed("] and") == '[clock: name="Alarm" tick="1" result="ok" now="2/6"] and'

    def test_quoted_bracket_does_not_close_the_tag(self) -> None:
        """A `]` inside a quoted value does not decide the span (the receipt cleans it out)."""
        processor = self.feeder()
        assert processor.feed('[clock: name="a]') == ""
        assert processor.feed('b" size="4"]').startswith('[clock: name="a b" size="4" result=')

    def test_unclosed_tag_is_decided_at_its_line_end(self) -> None:
        """A tag with no `]` is refused as malformed once its line ends and the next line
        shows it does not close the tag (SPEC §2.1); narration follows."""
        processor = self.feeder()
        assert processor.feed('[clock: name="Alarm" The guards') == ""
        assert processor.feed(" shout.\nNext") == ""  # `Next=…]` would close it
        out = processor.feed(", we run")
        assert out.startswith('[clock: name="Alarm" raw=')
        assert 'result="refused" reason="malformed"]' in out
        assert out.endswith(" The guards shout.\nNext, we run")

    def test_held_back_never_exceeds_the_tag_length(self) -> None:
        """A tag that never closes is decided at the tag length, so holding stays bounded."""
        limits = Limits(tag_length=64)
        processor = self.feeder(limits=limits)
        text = '[clock: name="Alarm" ' + "x" * 500
        most = 0
        for char in text:
            processor.feed(char)
            most = max(most, processor.held)
        assert most <= limits.tag_length
        processor.close()
        assert processor.result.receipts[0].reason == "malformed"

    def test_long_head_is_narration(self) -> None:
        """A head longer than the tag length (`[clock` and many spaces) is narration."""
        limits = Limits(tag_length=16)
        text = "[clock" + " " * 20 + ': name="A"]'
        processor = self.feeder(limits=limits)
        out = "".join(processor.feed(c) for c in text) + processor.close()
        assert out == text == process(text, torches(), start(), 1, limits=limits).text

    def test_display_holds_at_most_the_line(self) -> None:
        """In display mode nothing is held past its line; narration after a tag flows again."""
        processor = self.feeder(display=True)
        line = 'Ada waits. [clock: name="Alarm" tick="1"] Bells'
        most, out = 0, []
        for char in line:
            out.append(processor.feed(char))
            most = max(most, processor.held)
        assert most <= len(line)
        assert "".join(out) == "Ada waits. Bells"
        assert processor.feed("\nNext") == "\nNext"

    def test_display_narration_without_tags_flows(self) -> None:
        """A line with no tag candidate flows at once, short of a space a tag could take."""
        processor = self.feeder(display=True)
        assert processor.feed("Hello") == "Hello"
        assert processor.feed(" world ") == " world"
        assert processor.feed("\n") == " \n"

    def test_display_holds_only_what_a_tag_could_take(self) -> None:
        """Narration flows in display mode; only whitespace a tag could still take waits:
        mid-line a final space (an inline tag takes the one before it, render.display_text),
        at a line's start all of it (the line may yet hold only tags)."""
        processor = self.feeder(display=True)
        pieces = ["Ada ", "\t", "runs  ", " \r", "\n  ", "x", "y\n\t", '[clock: name="Alarm"]']
        shown = [processor.feed(piece) for piece in pieces[:2]]
        assert shown == ["Ada", " \t"]  # no tag takes a space before the tab
        assert processor.held == 0
        assert processor.feed(pieces[2]) == "runs "
        assert processor.held == 1
        assert processor.feed(pieces[3]) == "  \r"
        assert processor.feed(pieces[4]) == "\n"
        assert processor.held == 2
        assert processor.feed(pieces[5]) == "  x"
        assert processor.feed(pieces[6]) == "y\n"
        assert processor.held == 1
        out = "Ada \truns   \r\n  xy\n" + processor.feed(pieces[7]) + processor.close()
        assert out == process("".join(pieces), torches(), start(), seed=1).display

    def test_display_inline_tag_takes_the_held_space(self) -> None:
        """The space held before an inline tag is the one the tag takes."""
        processor = self.feeder(display=True)
        shown = [processor.feed(piece) for piece in ("Ada ", '[clock: name="Alarm" tick="1"]')]
        assert shown == ["Ada", ""]
        assert processor.feed(" runs.") == " runs."

    def test_display_line_after_a_tag_only_line(self) -> None:
        """Narration that flows at the start of a line after a tag-only line marks that line
        as not tag-only, so a tag ending it keeps the line break."""
        tag = '[clock: name="Alarm" tick="1"]'
        processor = self.feeder(display=True)
        shown = [processor.feed(piece) for piece in (tag + "\n", "abcd", " [cl", f"ock{tag[6:]}\n")]
        assert "".join(shown) + processor.close() == "abcd\n"

    def test_display_tag_only_line_disappears(self) -> None:
        """A line holding only tags goes, line break and all, once it has ended."""
        processor = self.feeder(display=True)
        assert processor.feed('  [clock: name="Alarm" tick="1"]') == ""
        assert processor.feed("\r\nNext") == "Next"


class TestSnapshotSoFar:
    TEXT = (
        'Ada runs. [sheet: op="spend" pool="hp" amount="3" who="Ada"] The bell\n'
        '[clock: name="Alarm" tick="1"] rings [clock: name="Gate" size="4"] on [clock: bad\n'
    )

    def test_it_holds_the_commands_whose_receipts_were_returned(self) -> None:
        """After each piece, `snapshot` holds exactly the commands whose receipts `feed` has
        returned so far (a tag still held back is not applied), however the text is cut;
        after `close` it is the result's."""
        from gmtags.history.fingerprint import receipts_in

        text = self.TEXT
        whole = process(text, torches(), start(), seed=5)
        after = [start()] + [
            process(text[: placed.end], torches(), start(), seed=5).snapshot
            for placed in whole.placed
        ]
        assert len(after) == 5 and all(after[i] != after[i + 1] for i in range(3))
        cuttings = [[a, b] for a in range(len(text) + 1) for b in (a + 1, a + 9)]
        for cuts in [*cuttings, list(range(len(text)))]:
            processor = StreamProcessor(torches(), start(), 5)
            out = ""
            for a, b in itertools.pairwise([0, *sorted(set(cuts)), len(text)]):
                out += processor.feed(text[a:b])
                assert processor.snapshot == after[len(receipts_in(out))]
            out += processor.close()
            assert out == whole.text and processor.snapshot == whole.snapshot


WHITESPACE_RUNS = st.sampled_from([" ", "  ", "\t", " \t", "\t ", "\u3000", "\u00a0 ", "\r", "\n"])
PLAIN_WORDS = ["Ada", "runs", "é", "🎲", "x.", "\u2028", "\x85"]
PLAIN = st.lists(st.one_of(st.sampled_from(PLAIN_WORDS), WHITESPACE_RUNS), max_size=20).map("".join)
# Narration with brackets no tag name can follow, ending in none of them.
BRACKETED = st.lists(
    st.one_of(st.sampled_from([*PLAIN_WORDS, "[OOC:", "[1]", "[a](b)", "[[x"]), WHITESPACE_RUNS),
    max_size=20,
).map(lambda words: "".join(words) + ".")


def waiting(received: str) -> str:
    """What display mode may hold back of narration with no `[`: at a line's start all its
    whitespace (the line may yet hold only tags), else a final space (a tag after it takes it)."""
    line = received[received.rfind("\n") + 1 :]
    if not line.strip():
        return line
    return " " if line.endswith(" ") else ""


@st.composite
def plain_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(PLAIN)
    after_space = [i + 1 for i, char in enumerate(text) if char.isspace()]
    cuts = draw(st.lists(st.sampled_from(after_space), max_size=12)) if after_space else []
    return text, cuts + draw(st.lists(st.integers(0, len(text)), max_size=4))


@st.composite
def bracketed_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    """Cut only after whitespace: no chunk ends in a `[` (that would be held as a head's start)."""
    text = draw(BRACKETED)
    after_space = [i + 1 for i, char in enumerate(text) if char.isspace()]
    return text, draw(st.lists(st.sampled_from(after_space), max_size=12)) if after_space else []


class TestDisplayFlow:
    @PROPERTY
    @given(case=plain_and_cuts())
    def test_narration_waits_only_for_what_a_tag_could_take(
        self, case: tuple[str, list[int]]
    ) -> None:
        """Narration with no `[` flows in display mode as soon as no tag could take it:
        after every chunk, what is held is exactly `waiting(received)`."""
        text, cuts = case
        processor = StreamProcessor(torches(), start(), 1, display=True)
        bounds = [0, *sorted(set(cuts)), len(text)]
        shown = ""
        for a, b in itertools.pairwise(bounds):
            shown += processor.feed(text[a:b])
            assert shown + waiting(text[:b]) == text[:b]
            assert processor.held == len(waiting(text[:b]))
        assert shown + processor.close() == text == process(text, torches()).display

    @PROPERTY
    @given(case=bracketed_and_cuts(), mode=st.sampled_from(MODES))
    def test_stray_brackets_flow_by_the_same_rule(
        self, case: tuple[str, list[int]], mode: str
    ) -> None:
        """Chunks whose every `[` is narration flow like any narration: as they came in
        receipt and card mode, holding only `waiting(received)` in display mode."""
        text, cuts = case
        processor = StreamProcessor(
            torches(), start(), 1, display=mode == "display", cards=mode == "cards"
        )
        bounds = [0, *sorted(set(cuts)), len(text)]
        shown = ""
        for a, b in itertools.pairwise(bounds):
            shown += processor.feed(text[a:b])
            held = waiting(text[:b]) if mode == "display" else ""
            assert shown + held == text[:b]
        assert shown + processor.close() == text

    @PROPERTY
    @given(
        case=plain_and_cuts(),
        tag=st.one_of(VALID_TAGS, broken_tags(), NEAR_MISSES),
        after=st.sampled_from(["", " ", "  x", "\n", " \n", "x"]),
        mode=st.sampled_from(MODES),
    )
    def test_a_tag_after_flowing_narration(
        self, case: tuple[str, list[int]], tag: str, after: str, mode: str
    ) -> None:
        """A tag (or a near miss) that comes after narration that flowed, cut after any
        whitespace, takes what `process()` says: the space before it, or its whole line."""
        text, cuts = case
        reply = text + tag + after + text
        whole = process(reply, torches(), start(), seed=3)
        out, processor = stream(reply, [*cuts, len(text), len(text) + len(tag)], mode, 3)
        assert out == expected(whole, mode)
        assert processor.result == whole


class TestApi:
    def test_result_before_close_raises(self) -> None:
        """Reading the result before close is misuse and raises."""
        with pytest.raises(RuntimeError):
            _ = StreamProcessor(torches()).result

    def test_feed_after_close_raises(self) -> None:
        """Feeding after close is misuse and raises."""
        processor = StreamProcessor(torches())
        processor.close()
        with pytest.raises(RuntimeError):
            processor.feed("x")

    def test_feed_needs_str(self) -> None:
        """Bytes are refused: decoding is the caller's business."""
        with pytest.raises(TypeError):
            StreamProcessor(torches()).feed(b"x")  # type: ignore[arg-type]

    def test_seed_none_draws_one_and_keeps_it(self) -> None:
        """Without a seed a fresh one is drawn and kept on the result, so it can be replayed."""
        text = '[skill_check: skill="athletics" dc="12" who="Ada"]'
        processor = StreamProcessor(torches(), start())
        processor.feed(text)
        processor.close()
        replay = process(text, torches(), start(), seed=processor.result.seed)
        assert processor.result == replay


def run_cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    code = (
        "from gmtags.cli import main; from gmtags.commands.stream import stream_command;"
        "main.add_command(stream_command); main()"
    )
    return subprocess.run(
        [sys.executable, "-c", code, "stream", *args], input=stdin, capture_output=True, check=False
    )


class TestStreamCommand:
    REPLY = 'Ada “waits”. [clock: name="Alarm" tick="1"]\r\n[sheet: op="spend" pool="hp"]\nEnd'

    @pytest.mark.parametrize("flag", ["", "--display", "--cards"])
    def test_matches_process(self, flag: str) -> None:
        """`gmtags stream` prints what `process()` gives, in each view."""
        args = ["--ruleset", str(TORCHES_PATH), "--seed", "5", *([flag] if flag else [])]
        out = run_cli(*args, stdin=self.REPLY.encode())
        assert out.returncode == 0, out.stderr
        whole = process(self.REPLY, torches(), seed=5)
        mode = flag.removeprefix("--") or "text"
        assert out.stdout.decode() == expected(whole, mode)

    def test_bad_utf8_exits_1(self) -> None:
        """Input that is not UTF-8 is an invalid input: exit 1, one line, no traceback."""
        out = run_cli("--ruleset", str(TORCHES_PATH), stdin=b"ok \xff\xfe")
        assert out.returncode == 1
        assert b"not UTF-8" in out.stderr and b"Traceback" not in out.stderr

    def test_display_and_cards_is_usage_error(self) -> None:
        """The two views cannot be asked for at once."""
        out = run_cli("--ruleset", str(TORCHES_PATH), "--display", "--cards", stdin=b"")
        assert out.returncode == 2


def test_random_reply_fuzz() -> None:
    """A long random reply in many random chunkings agrees in every mode (seeded, cheap)."""
    rng = random.Random(11)
    pieces = [*WORDS, '[clock: name="Alarm" tick="1"]', "[clock: bad", "[sheet", "[OOC: x]"]
    text = "".join(rng.choice(pieces) for _ in range(2000))
    whole = process(text, torches(), start(), seed=2)
    for mode in MODES:
        cuts = sorted(rng.sample(range(len(text)), 600))
        assert stream(text, cuts, mode, 2)[0] == expected(whole, mode)


def test_may_wait_is_every_whitespace_character() -> None:
    """Display's set of characters that may wait is exactly what `str.isspace` takes."""
    from gmtags.stream.processor import _MAY_WAIT

    assert {c for c in map(chr, range(0x110000)) if c.isspace()} == _MAY_WAIT


@st.composite
def card_placements(draw: st.DrawFn) -> tuple[str, list[int]]:
    """Replies whose tags sit mid-line, at a line's end, at the very end, side by side, or
    after a card that ends a line (SPEC §7.3), with cuts at the hardest places."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        parts.append(draw(st.sampled_from(["", "a", "a ", " b", "\n", "c\n", "\r\n"])))
        parts.append(draw(st.one_of(VALID_TAGS, broken_tags())))
        if draw(st.booleans()):
            parts.append(draw(VALID_TAGS))  # adjacent
    parts.append(draw(st.sampled_from(["", "\n", " end", "\nend", "end\n"])))
    text = "".join(parts)
    return text, tricky_cuts(draw, text)


class TestCardLines:
    """SPEC §7.3: in card mode each card stands on a line of its own, streamed or not."""

    @PROPERTY
    @given(case=card_placements())
    def test_stream_equals_process(self, case: tuple[str, list[int]]) -> None:
        """Any chunking of a reply gives the card text `process()` gives."""
        text, cuts = case
        shown, processor = stream(text, cuts, "cards")
        assert (
            shown
            == processor.result.cards
            == expected(process(text, torches(), start(), seed=7), "cards")
        )

    @PROPERTY
    @given(case=card_placements())
    def test_every_card_is_a_line(self, case: tuple[str, list[int]]) -> None:
        """Every card of the reply is a whole line of the card text, in order (a line ends at
        "\n", "\r\n" or "\r": a card before "\r\n" adds no line of its own)."""
        text, _ = case
        result = process(text, torches(), start(), seed=7)
        lines = re.split(r"\r\n|\r|\n", result.cards)
        cards = [placed.card for placed in result.receipts]
        assert [line for line in lines if line in cards] == cards

    @given(text=card_placements().map(lambda case: case[0]))
    @settings(max_examples=100, deadline=None)
    def test_one_character_chunks(self, text: str) -> None:
        """Character by character, the card lines come out the same."""
        shown, processor = stream(text, list(range(len(text))), "cards")
        assert shown == processor.result.cards


@pytest.mark.parametrize(
    "text",
    [
        # Found by the chunking property: a tag head in a fence line's info string, the fence
        # then holding only tags (batch hides the fence line with them).
        '[clock: name=""]```\n[clock: name="Alarm" tick="1"]\n```a[clock\t \n'
        '[clock: name="Alarm" tick="1"]',
        '```x[sheet\n[clock: name="Alarm" tick="1"]\n```',
        'Text.\n~~~[clock: name="A"]\n[clock: name="Alarm" tick="1"]',
    ],
)
def test_a_head_in_a_fence_line_at_any_cut(text: str) -> None:
    """Cut anywhere, in two, the stream gives what batch gives."""
    want = process(text, torches(), start(), seed=4).text
    for cut in range(len(text) + 1):
        processor = StreamProcessor(torches(), start(), 4)
        got = processor.feed(text[:cut]) + processor.feed(text[cut:]) + processor.close()
        assert got == want, cut
