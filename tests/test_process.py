"""`process` as a whole: invariants that hold for any reply (SPEC §1, §2, §8)."""

from __future__ import annotations

import random

import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from gmtags import Limits, Ruleset, Snapshot, load_ruleset, log, process
from gmtags.limits import DEFAULT_LIMITS
from gmtags.process import SeededDice
from gmtags.state.snapshot import Clock
from gmtags.tags.scan import find_spans
from tests.conftest import FIXTURES

NARRATION = st.lists(
    st.sampled_from(
        [*list("abc XYZ.,:=\n\t[]\"'“”{}"), "é", "ß", "→", "🎲", "\u2028", "clock", "sheet"]
    ),
    max_size=40,
).map("".join)
NAMES = st.sampled_from(["clock", "Clock", "sheet", "skill_check", "SHEET"])
VALUES = st.text(alphabet=st.sampled_from([*list("Ab 1-+é[]{}"), "“"]), max_size=8)
KEYS = st.sampled_from(["name", "size", "tick", "clear", "result", "now", "op", "skill", "x"])


@st.composite
def tags(draw: st.DrawFn) -> str:
    """Tags that follow the grammar, and broken ones: quotes, brackets, missing ends."""
    quote_open = draw(st.sampled_from(['"', "\u201c", "\u201d"]))
    quote_close = draw(st.sampled_from(['"', "\u201c", "\u201d", ""]))
    attrs = draw(
        st.lists(
            st.one_of(
                st.builds(lambda k, v: f"{k}={quote_open}{v}{quote_close}", KEYS, VALUES),
                KEYS,
            ),
            max_size=4,
        )
    )
    end = draw(st.sampled_from(["]", "]", "]", "", "\n"]))
    space = draw(st.sampled_from(["", " ", "  "]))
    return f"[{draw(NAMES)}{space}:{' ' + ' '.join(attrs) if attrs else ''}{end}"


REPLIES = st.lists(st.one_of(NARRATION, tags()), max_size=12).map("".join)
CLOCKS = st.lists(
    st.builds(
        lambda name, size, fill: Clock(name=name, size=size, filled=min(fill, size)),
        st.sampled_from(["A", "B", "Ab", "Alarm"]),
        st.sampled_from([4, 6, 8]),
        st.integers(0, 8),
    ),
    max_size=3,
    unique_by=lambda c: c.name.casefold(),
)


def narration_of(text: str) -> list[str]:
    """The text between tag spans, as a scan of `text` finds them."""
    pieces, pos = [], 0
    for span in find_spans(text, DEFAULT_LIMITS):
        pieces.append(text[pos : span.start])
        pos = span.end
    pieces.append(text[pos:])
    return pieces


class TestInvariants:
    @settings(
        max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(reply=REPLIES, clocks=CLOCKS, seed=st.integers(0, 2**32))
    def test_never_raises_and_keeps_narration(
        self, clocks_ruleset: Ruleset, reply: str, clocks: list[Clock], seed: int
    ) -> None:
        """Any reply processes without raising; narration outside tags survives byte for byte."""
        start = Snapshot(rulesetClocks=tuple(clocks))
        result = process(reply, clocks_ruleset, start, seed=seed)
        assert narration_of(result.text) == narration_of(reply)
        assert len(result.receipts) == len(list(find_spans(reply, DEFAULT_LIMITS)))
        assert all(r.reason != "internal-error" for r in result.receipts)

    @settings(
        max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(reply=REPLIES, seed=st.integers(0, 2**32))
    def test_same_seed_same_output(self, clocks_ruleset: Ruleset, reply: str, seed: int) -> None:
        """The same text, ruleset, snapshot and seed give byte-identical output."""
        first = process(reply, clocks_ruleset, seed=seed)
        second = process(reply, clocks_ruleset, seed=seed)
        assert (first.text, first.display, first.snapshot) == (
            second.text,
            second.display,
            second.snapshot,
        )

    @settings(
        max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(tag=tags(), clocks=CLOCKS)
    def test_refused_command_changes_nothing(
        self, clocks_ruleset: Ruleset, tag: str, clocks: list[Clock]
    ) -> None:
        """A refused command leaves the snapshot exactly as it was."""
        start = Snapshot(rulesetClocks=tuple(clocks))
        result = process(tag, clocks_ruleset, start, seed=1)
        if result.receipts and result.receipts[0].result == "refused":
            assert result.snapshot == start

    @settings(
        max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(reply=REPLIES)
    def test_receipts_parse_again(self, clocks_ruleset: Ruleset, reply: str) -> None:
        """Every receipt is one well-formed tag when the output is scanned again."""
        result = process(reply, clocks_ruleset, seed=3)
        again = list(find_spans(result.text, DEFAULT_LIMITS))
        assert len(again) == len(result.receipts)
        assert all(span.complete for span in again)


class TestProcess:
    def test_start_snapshot_is_not_changed(self, clocks_ruleset: Ruleset) -> None:
        """Applying tags builds a new snapshot; the one passed in stays as it was."""
        start = Snapshot(rulesetClocks=(Clock(name="A", size=4, filled=1),))
        result = process('[clock: name="A" tick="2"]', clocks_ruleset, start, seed=1)
        assert start.ruleset_clocks[0].filled == 1
        assert result.snapshot.ruleset_clocks[0].filled == 3

    def test_forty_commands_then_too_many(self, clocks_ruleset: Ruleset) -> None:
        """The 41st command of a reply is refused with reason="too-many" and changes nothing."""
        reply = '[clock: name="A" size="8"]\n' + '[clock: name="A" tick="1"]\n' * 40
        result = process(reply, clocks_ruleset, seed=1)
        reasons = [r.reason for r in result.receipts]
        assert reasons[:40] == [None] * 40
        assert reasons[40] == "too-many"
        assert result.snapshot.ruleset_clocks[0].filled == 8

    def test_limit_is_injected(self, clocks_ruleset: Ruleset) -> None:
        """The command limit comes from the Limits passed in."""
        reply = '[clock: name="A" size="8"] [clock: name="A" tick="1"]'
        result = process(reply, clocks_ruleset, seed=1, limits=Limits(commands_per_response=1))
        assert [r.reason for r in result.receipts] == [None, "too-many"]

    def test_fresh_seed_is_reported(self) -> None:
        """seed=None draws a seed and keeps it on the result, so the run, dice and all, can be
        replayed: the kept seed rolls the very same faces (SPEC §1)."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "checks" / "two-d6.json")
        reply = '[skill_check: skill="Climb" dc="8"] ' * 6
        result = process(reply, ruleset)
        assert isinstance(result.seed, int) and result.text.count('rolls="') == 6
        assert process(reply, ruleset, seed=result.seed).text == result.text

    def test_logging_configured_after_first_use_is_followed(self, clocks_ruleset: Ruleset) -> None:
        """The command logger is bound once per configuration: a new one takes effect at once."""
        text = '[clock: name="A" size="4"]'
        with capture_logs() as quiet:
            process(text, clocks_ruleset, seed=1)  # gmtags' default: info is filtered out
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(0))
        try:
            with capture_logs() as events:
                process(text, clocks_ruleset, seed=1)
        finally:
            log.configure()
        with capture_logs() as again:
            process(text, clocks_ruleset, seed=1)
        assert [e["event"] for e in events] == ["command.applied"]
        assert quiet == [] and again == []

    def test_one_log_event_per_command(self, clocks_ruleset: Ruleset) -> None:
        """Each applied command logs one command.applied event carrying its receipt."""
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(0))
        try:
            with capture_logs() as events:
                process(
                    '[clock: name="A" size="4"] [clock: name="B" tick="1"]', clocks_ruleset, seed=1
                )
        finally:
            log.configure()  # back to gmtags' quiet default, not structlog's (stdout)
        applied = [e for e in events if e["event"] == "command.applied"]
        assert [e["result"] for e in applied] == ["ok", "refused"]
        assert applied[0]["receipt"] == '[clock: name="A" size="4" result="ok" now="0/4"]'


class TestSeededDice:
    def test_throws_as_random_random_does(self) -> None:
        """The lazily seeded dice throw exactly what `random.Random(seed)` throws, in order."""
        dice, reference = SeededDice(42), random.Random(42)
        assert [dice.randint(1, s) for s in (20, 6, 100, 20, 3)] == [
            reference.randint(1, s) for s in (20, 6, 100, 20, 3)
        ]
