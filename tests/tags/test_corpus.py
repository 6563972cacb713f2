"""The corpus of model-written replies (fixtures/replies, issue 28, SPEC §2.1): every case's
goldens, stream == batch under any chunking, recovered tags read as their canonical form,
and no tag or wrapping on screen."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import ProcessResult, StreamProcessor, process
from gmtags.tags.receipt import Receipt
from gmtags.tags.scan import without_reasoning
from gmtags.tags.spell import ANY_HEAD, WRAPPERS
from gmtags.testing import GoldenCase
from tests.tags import corpus

CASES = corpus.cases()
MODES = ("text", "display", "cards")
RESULTS: dict[str, ProcessResult] = {}


def result(case: GoldenCase) -> ProcessResult:
    """`process()` on the case, once per test session."""
    if case.id not in RESULTS:
        RESULTS[case.id] = corpus.run(case)
    return RESULTS[case.id]


GOLDEN = [
    pytest.param(
        case,
        id=case.id,
        marks=[pytest.mark.xfail(reason=case.meta["xfail"], strict=True)]
        if "xfail" in case.meta
        else [],
    )
    for case in CASES
]
"""Every case; one marked `- xfail: <reason>` (a known bug) holds the goldens a person wrote
as right, so its golden test fails until the bug is fixed, then passes and must be unmarked."""
PLAIN = [pytest.param(case, id=case.id) for case in CASES]


@contextmanager
def known_bug(case: GoldenCase) -> Iterator[None]:
    """An invariant that a case marked xfail breaks is reported as that known bug (xfail)."""
    try:
        yield
    except AssertionError:
        if "xfail" in case.meta:
            pytest.xfail(case.meta["xfail"])
        raise


def view(result: ProcessResult, mode: str) -> str:
    return {"text": result.text, "display": result.display, "cards": result.cards}[mode]


def streamed(case: GoldenCase, mode: str, cuts: list[int]) -> tuple[str, StreamProcessor]:
    """The case's reply cut at `cuts` and fed to a stream filter in `mode`: what it showed."""
    text = case.sections["input"]
    processor = StreamProcessor(
        corpus.ruleset(case.meta["ruleset"]),
        corpus.start(case),
        case.seed,
        display=mode == "display",
        cards=mode == "cards",
    )
    bounds = [0, *sorted(set(cuts)), len(text)]
    shown = [processor.feed(text[a:b]) for a, b in itertools.pairwise(bounds) if a < b]
    return "".join(shown) + processor.close(), processor


# -- the variants the corpus must hold (SPEC §2.1, §4, issue 28) ----------------------------

Check = Callable[[GoldenCase, ProcessResult], bool]


def _written(pattern: str, flags: int = 0) -> Check:
    compiled = re.compile(pattern, flags)
    return lambda case, _: compiled.search(without_reasoning(case.sections["input"])) is not None


def _recovered(code: str) -> Check:
    return lambda _, result: any(
        code in (receipt.attr("recovered") or "").split() for receipt in result.receipts
    )


def _reason(reason: str) -> Check:
    return lambda _, result: any(receipt.reason == reason for receipt in result.receipts)


def _on(ruleset: str, check: Check) -> Check:
    return lambda case, result: case.meta["ruleset"] == ruleset and check(case, result)


def _reasoning(name: str, closed: bool) -> Check:
    def found(case: GoldenCase, _: ProcessResult) -> bool:
        text = case.sections["input"]
        opener = re.search(f"<{name}>", text, re.IGNORECASE)
        if opener is None:
            return False
        tag_inside = ANY_HEAD.search(text, opener.end()) is not None
        has_close = re.search(f"</{name}>", text[opener.end() :], re.IGNORECASE) is not None
        return tag_inside and has_close == closed

    return found


def fences(text: str) -> Iterator[list[str]]:
    """The lines inside each closed code fence of `text`."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opener = re.match(r" {0,3}(`{3,}|~{3,})", lines[i])
        if opener is None:
            i += 1
            continue
        close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == opener[1]), None)
        if close is None:
            return
        yield lines[i + 1 : close]
        i = close + 1


def _applied_prefix_who(_: GoldenCase, result: ProcessResult) -> bool:
    return any(
        receipt.tag == "skill_check"
        and (written := dict(receipt.inputs).get("who"))
        and receipt.attr("who") != written
        and (receipt.attr("who") or "").lower().startswith(written.lower())
        for receipt in result.receipts
    )


_FENCE_OF = r"^ {0,3}(?:`{3,}|~{3,})"
_TAG_LINE = r"[*_`\\]*\[(?:skill|sheet|clock)[^\n]*\]"
LADDERS = {
    "with Hard": "reference/ember-roads.json",
    "without Hard": "reference/gravewatch.json",
}
VARIANTS: dict[str, Check] = {
    # the name (§2.1)
    "[skill-check:": _written(r"\[skill-check\s*:"),
    "[skillcheck:": _written(r"\[skillcheck\s*:"),
    "[Skill Check:": _written(r"\[Skill Check\s*:"),
    "[SKILL_CHECK:": _written(r"\[SKILL_CHECK\s*:"),
    "[skill\\_check:": _written(r"\[skill\\_check\s*:"),
    "full-width ［skill_check：…］": _written(r"［skill_check：[^］\n]*］"),
    # wrapping
    "inline code": _recovered("code"),
    "bold": _written(r"(?<![*])\*\*\[(?:skill|sheet|clock)"),
    "italics": _written(r"(?<![*_])[*_]\[(?:skill|sheet|clock)"),
    "bold italics": _written(r"\*\*\*\[(?:skill|sheet|clock)"),
    "escaped \\[ … \\]": _written(r"\\\[(?:skill|sheet|clock)[^\n]*\\\]"),
    "a fence without a language": _written(rf"{_FENCE_OF}\n{_TAG_LINE}\n", re.M),
    "a fence with a language": _written(rf"{_FENCE_OF}[a-z]+\n{_TAG_LINE}\n", re.M),
    "several tags in one fence": _written(
        rf"{_FENCE_OF}[a-z]*\n{_TAG_LINE}\n(?:\n)*{_TAG_LINE}\n", re.M
    ),
    "a fence with a tag and other text": lambda case, _: any(
        any(ANY_HEAD.search(line) for line in lines)
        and any(line.strip() and not ANY_HEAD.search(line) for line in lines)
        for lines in fences(without_reasoning(case.sections["input"]))
    ),
    # attributes
    "single quotes": _recovered("quotes"),
    "unquoted one-word values": _recovered("unquoted"),
    "commas between pairs": _recovered("commas"),
    'key: "v"': _written(r'\[[^\]\n]*\b[a-z]+:\s*"'),
    'key = "v"': _written(r'\[[^\]\n]*\b[a-z]+ = "'),
    "no-break spaces": _recovered("nbsp"),
    "curly quotes": _written("=“"),
    "a tag broken over two lines": _written(r"\[(?:skill|Skill)[^\]\n]*\n[^\[\n]*\]"),
    # refusals (§2.1)
    'placeholder "<…>"': _written(r'="<[^">]*>"'),
    'placeholder dc="X"': _written(r'dc="[Xx]"'),
    'placeholder who="N"': _written(r'who="N"'),
    'placeholder "..."': _written(r'="\.\.\."'),
    'placeholder "…"': _written(r'="…"'),
    'placeholder "?"': _written(r'="\s*\?\s*"'),
    'placeholder ""': _written(r'\b(?!value)[a-z]+=""'),
    'dc="Hard" on a ladder with Hard': _on(LADDERS["with Hard"], _written(r'dc="[Hh]ard"')),
    'dc="Hard" on a ladder without Hard': _on(LADDERS["without Hard"], _written(r'dc="[Hh]ard"')),
    "unknown-dc": _reason("unknown-dc"),
    # who (§4) and saves
    'who="Bram" read as a prefix': _applied_prefix_who,
    "ambiguous-who": _reason("ambiguous-who"),
    'a stranger (sheet="none")': lambda _, result: any(
        receipt.attr("sheet") == "none" for receipt in result.receipts
    ),
    'save="Dexterity" on 5e': _on(
        "reference/ruleset-5e-2014.example.json", _written(r'save="Dexterity"')
    ),
    # reasoning
    "<think>…</think>": _reasoning("think", closed=True),
    "<thinking>…</thinking>": _reasoning("thinking", closed=True),
    "<reasoning>…</reasoning>": _reasoning("reasoning", closed=True),
    "<think> never closed": _reasoning("think", closed=False),
    # near misses that stay narration
    "[OOC: …]": _written(r"\[OOC:"),
    "[1]": _written(r"\[1\]"),
    "a markdown link": _written(r"\[[^\]\n]+\]\(https?://"),
    "[skill check] with no colon": _written(r"\[skill check\]", re.IGNORECASE),
    "[ clock: …]": _written(r"\[ clock:", re.IGNORECASE),
}


class TestCorpus:
    def test_at_least_200_replies(self) -> None:
        """Issue 28: the corpus holds at least 200 model-written replies."""
        assert len(CASES) >= 200

    def test_every_case_is_whole(self) -> None:
        """Each case names a ruleset and holds input, text and display; titles are unique."""
        for case in CASES:
            assert {"ruleset", "seed"} <= case.meta.keys(), case.id
            assert {"input", "text", "display"} <= case.sections.keys(), case.id
        assert len({case.id for case in CASES}) == len(CASES)

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_every_variant_appears_several_times(self, variant: str) -> None:
        """Every variant of SPEC §2.1 and issue 28 is in at least three replies."""
        found = [case.id for case in CASES if VARIANTS[variant](case, result(case))]
        assert len(found) >= 3, found


class TestGolden:
    @pytest.mark.parametrize("case", GOLDEN)
    def test_golden(self, case: GoldenCase) -> None:
        """Processing the reply gives exactly its receipts, display and cards."""
        found = result(case)
        assert found.text == case.sections["text"]
        assert found.display == case.sections["display"]
        if "cards" in case.sections:
            assert found.cards == case.sections["cards"]

    def test_regeneration_is_idempotent(self) -> None:
        """`python -m tests.tags.corpus` writes every file exactly as it reads."""
        for path in corpus.files():
            from gmtags.testing import read_cases

            filled = [(case, dict(case.sections)) for case in read_cases(path)]
            assert corpus.render_file(path, filled) == path.read_text(encoding="utf-8"), path


class TestStream:
    @pytest.mark.parametrize("case", PLAIN)
    def test_one_character_chunks(self, case: GoldenCase) -> None:
        """Fed one character at a time, the stream shows what process() gives, in every mode."""
        expected = result(case)
        cuts = list(range(1, len(case.sections["input"])))
        with known_bug(case):
            for mode in MODES:
                shown, processor = streamed(case, mode, cuts)
                assert shown == view(expected, mode), mode
                assert processor.result == expected, mode

    @pytest.mark.parametrize("case", PLAIN)
    @settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_any_chunking(self, case: GoldenCase, data: st.DataObject) -> None:
        """Cut anywhere, the stream shows what process() gives in every mode, and its result
        is process()'s."""
        text = case.sections["input"]
        cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="cuts")
        expected = result(case)
        with known_bug(case):
            for mode in MODES:
                shown, processor = streamed(case, mode, cuts)
                assert shown == view(expected, mode), mode
                assert processor.result == expected, mode


def canonical(receipt: Receipt) -> str:
    """The canonical tag a receipt's input attributes spell (SPEC §2)."""
    parts = [key if value is None else f'{key}="{value}"' for key, value in receipt.inputs]
    return f"[{receipt.tag}: {' '.join(parts)}]"


def unrecovered(receipt: Receipt) -> tuple[Any, ...]:
    """A receipt as it compares with its canonical twin's: all of it but `recovered=`."""
    outputs = tuple(pair for pair in receipt.outputs if pair[0] != "recovered")
    return receipt.tag, receipt.inputs, outputs, receipt.card


class TestRecovered:
    @pytest.mark.parametrize("case", PLAIN)
    def test_recovered_tags_read_as_their_canonical_form(self, case: GoldenCase) -> None:
        """The reply with each recovered tag written canonically rolls the same dice, gives
        the same receipts (but `recovered=`) and the same snapshot, with the same seed."""
        found = result(case)
        source = case.sections["input"]
        pieces: list[str] = []
        pos = 0
        for item in found.placed:
            receipt = item.receipt
            if receipt.attr("recovered") is None or receipt.reason == "malformed":
                continue
            assert all('"' not in (value or "") for _, value in receipt.inputs)
            pieces += [source[pos : item.start], canonical(receipt)]
            pos = item.end
        if not pieces:
            return
        rebuilt = "".join([*pieces, source[pos:]])
        ruleset = corpus.ruleset(case.meta["ruleset"])
        again = process(rebuilt, ruleset, corpus.start(case), case.seed)
        with known_bug(case):
            assert all(
                receipt.attr("recovered") is None
                for receipt in again.receipts
                if receipt.reason != "malformed"
            )
            assert [unrecovered(r) for r in again.receipts] == [
                unrecovered(r) for r in found.receipts
            ]
            assert again.snapshot == found.snapshot


_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")


def empty_fences(text: str) -> list[int]:
    """The lines (0-based) opening code fences of `text` that hold nothing: closed with only
    blank lines inside, or never closed with only blank lines after (Markdown: a fence opens
    at a line of three or more backticks or tildes and closes at one of at least as many)."""
    lines = text.split("\n")
    empty: list[int] = []
    opened: tuple[int, str] | None = None
    for number, line in enumerate(lines):
        fence = _FENCE_LINE.fullmatch(line)
        if fence is None:
            continue
        if opened is None:
            opened = number, fence[1]
        elif fence[1].startswith(opened[1]) and not fence[2].strip():
            if not any(inside.strip() for inside in lines[opened[0] + 1 : number]):
                empty.append(opened[0])
            opened = None
    if opened is not None and not any(after.strip() for after in lines[opened[0] + 1 :]):
        empty.append(opened[0])
    return empty


class TestHidden:
    @pytest.mark.parametrize("case", PLAIN)
    def test_no_tag_head_on_screen(self, case: GoldenCase) -> None:
        """Outside reasoning, neither display nor cards hold a tag head in any §2.1 spelling."""
        found = result(case)
        with known_bug(case):
            for mode in ("display", "cards"):
                shown = without_reasoning(view(found, mode))
                head = ANY_HEAD.search(shown)
                assert head is None, (mode, shown[head.start() : head.start() + 60])

    @pytest.mark.parametrize("case", PLAIN)
    def test_no_fence_left_empty(self, case: GoldenCase) -> None:
        """No empty code fence, closed or not, is left on screen where a fence of tags was."""
        found = result(case)
        assert not empty_fences(without_reasoning(case.sections["input"]))
        with known_bug(case):
            for mode in ("display", "cards"):
                shown = without_reasoning(view(found, mode))
                assert not empty_fences(shown), (mode, shown)

    @pytest.mark.parametrize("case", PLAIN)
    def test_no_wrapping_left_hugging_a_tag(self, case: GoldenCase) -> None:
        """What a tag took leaves no `\\` before it and no bold, italics or code mark mirrored
        on both sides of it: its wrapping went with it."""
        found = result(case)
        source = case.sections["input"]
        with known_bug(case):
            for item in found.placed:
                before = source[item.start - 1] if item.start > 0 else ""
                after = source[item.end] if item.end < len(source) else ""
                near = source[max(0, item.start - 5) : item.end + 5]
                assert before != "\\", near
                assert not (before and before in WRAPPERS and after == before), near
