"""The stream filter (gmtags/stream): any chunking equals `process()` on the whole text."""

from __future__ import annotations

import itertools
import random
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
    "clock",
    "sheet",
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


PIECES = st.one_of(NARRATION, VALID_TAGS, broken_tags(), NEAR_MISSES, st.sampled_from([" ", "\n"]))
REPLIES = st.lists(PIECES, max_size=14).map("".join)


@st.composite
def replies_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(REPLIES)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=12))
    return text, cuts


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
    @given(text=REPLIES, mode=st.sampled_from(MODES))
    def test_one_character_chunks_equal_process(self, text: str, mode: str) -> None:
        """Fed one character at a time, the output equals `process()` on the whole text."""
        whole = process(text, torches(), start(), seed=7)
        out, processor = stream(text, list(range(len(text))), mode)
        assert out == expected(whole, mode)
        assert processor.result == whole

    @settings(max_examples=150, deadline=None)
    @given(case=replies_and_cuts(), mode=st.sampled_from(MODES), length=st.integers(8, 40))
    def test_tight_tag_length(self, case: tuple[str, list[int]], mode: str, length: int) -> None:
        """With a small tag length limit the spans still match `process()` exactly."""
        text, cuts = case
        limits = Limits(tag_length=length)
        whole = process(text, torches(), start(), seed=7, limits=limits)
        out, processor = stream(text, cuts, mode, limits=limits)
        assert out == expected(whole, mode)
        assert processor.result == whole

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

    def test_forty_commands_then_too_many(self) -> None:
        """Past the command limit tags are refused as too-many, as `process()` does."""
        text = 'x [clock: name="Alarm" tick="1"]\n' * 45
        whole = process(text, torches(), start(), seed=1)
        out, processor = stream(text, list(range(0, len(text), 3)), "text", 1)
        assert out == whole.text
        assert processor.result.receipts[-1].reason == "too-many"


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
        after a tag, and the response is still the one `process()` gives."""
        processor = self.feeder(**mode)
        chunks = ["The gate ", "creaks. ", '[clock: name="Dusk" size="4"]', " Rain", " falls."]
        shown = [processor.feed(chunk) for chunk in chunks]
        assert shown[:2] == chunks[:2] and shown[3:] == chunks[3:]
        assert processor.held == 0
        whole = process("".join(chunks), torches(), start(), seed=1)
        assert "".join(shown) + processor.close() == (whole.cards if mode else whole.text)

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
        """A tag with no `]` is refused as malformed once its line ends; narration follows."""
        processor = self.feeder()
        assert processor.feed('[clock: name="Alarm" The guards') == ""
        out = processor.feed(" shout.\nNext")
        assert out.startswith('[clock: name="Alarm" raw=')
        assert 'result="refused" reason="malformed"]' in out
        assert out.endswith(" The guards shout.\nNext")

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

    def test_display_tag_only_line_disappears(self) -> None:
        """A line holding only tags goes, line break and all, once it has ended."""
        processor = self.feeder(display=True)
        assert processor.feed('  [clock: name="Alarm" tick="1"]') == ""
        assert processor.feed("\r\nNext") == "Next"


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
        "from gmtags.cli import main; from gmtags.stream.cli import stream_command;"
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
