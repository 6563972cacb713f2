"""`[clock:]` commands, rule by rule (002, "Relojes de progreso del grupo y de la escena")."""

from __future__ import annotations

import random

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.engine.clock import apply_clock
from gmtags.engine.context import Applied, Context
from gmtags.limits import DEFAULT_LIMITS
from gmtags.state.snapshot import Clock
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from tests.conftest import FIXTURES


def run(text: str, snapshot: Snapshot, ruleset: Ruleset) -> Applied:
    (span,) = list(find_spans(text, DEFAULT_LIMITS))
    tag = parse_span(text, span, ENGINE_ATTRS["clock"])
    return apply_clock(tag, snapshot, Context(ruleset, random.Random(0), DEFAULT_LIMITS))


def clocks(*specs: tuple[str, int, int]) -> Snapshot:
    return Snapshot(rulesetClocks=tuple(Clock(name=n, size=s, filled=f) for n, s, f in specs))


class TestCreate:
    def test_creates_an_empty_clock(self, clocks_ruleset: Ruleset) -> None:
        """size= creates an empty clock at the end of the list: now="0/6"."""
        applied = run('[clock: name="B" size="6"]', clocks(("A", 4, 1)), clocks_ruleset)
        assert applied.receipt.attr("now") == "0/6"
        assert [c.name for c in applied.snapshot.ruleset_clocks] == ["A", "B"]

    def test_size_must_be_allowed(self, clocks_ruleset: Ruleset) -> None:
        """A size outside `sizes` is refused with bad-size."""
        applied = run('[clock: name="B" size="10"]', Snapshot(), clocks_ruleset)
        assert applied.receipt.reason == "bad-size"

    def test_ruleset_sizes_are_used(self) -> None:
        """The allowed sizes come from the ruleset, not the defaults."""
        small = load_ruleset(FIXTURES / "rulesets" / "clocks-small.json")
        assert run('[clock: name="B" size="8"]', Snapshot(), small).receipt.reason == "bad-size"
        assert run('[clock: name="B" size="6"]', Snapshot(), small).receipt.result == "ok"

    def test_duplicate_name_any_case(self, clocks_ruleset: Ruleset) -> None:
        """An existing name, compared without case, refuses the create."""
        applied = run('[clock: name="alarm" size="4"]', clocks(("Alarm", 4, 0)), clocks_ruleset)
        assert applied.receipt.reason == "duplicate-clock"

    def test_max_counts_full_clocks(self) -> None:
        """With `max` clocks kept, even full ones, a new clock is refused."""
        small = load_ruleset(FIXTURES / "rulesets" / "clocks-small.json")
        state = clocks(("A", 4, 4), ("B", 6, 6))
        assert run('[clock: name="C" size="4"]', state, small).receipt.reason == "clock-limit"


class TestTick:
    def test_adds_segments(self, clocks_ruleset: Ruleset) -> None:
        """tick= adds segments: 2/6 + 2 → 4/6."""
        applied = run('[clock: name="A" tick="2"]', clocks(("A", 6, 2)), clocks_ruleset)
        assert applied.receipt.attr("now") == "4/6"

    def test_clamps_to_size_and_zero(self, clocks_ruleset: Ruleset) -> None:
        """The fill is clamped to 0..size in both directions."""
        up = run('[clock: name="A" tick="9"]', clocks(("A", 6, 2)), clocks_ruleset)
        down = run('[clock: name="A" tick="-9"]', clocks(("A", 6, 2)), clocks_ruleset)
        assert (up.receipt.attr("now"), down.receipt.attr("now")) == ("6/6", "0/6")

    def test_full_clock_stays(self, clocks_ruleset: Ruleset) -> None:
        """A full clock is complete but stays in the snapshot."""
        applied = run('[clock: name="A" tick="1"]', clocks(("A", 4, 3)), clocks_ruleset)
        assert applied.snapshot.ruleset_clocks == (Clock(name="A", size=4, filled=4),)

    def test_negative_tick_reopens(self, clocks_ruleset: Ruleset) -> None:
        """A negative tick takes a full clock below its size again."""
        applied = run('[clock: name="A" tick="-1"]', clocks(("A", 4, 4)), clocks_ruleset)
        assert applied.receipt.attr("now") == "3/4"

    def test_unknown_clock(self, clocks_ruleset: Ruleset) -> None:
        """Ticking a clock that does not exist is refused and changes nothing."""
        state = clocks(("A", 4, 1))
        applied = run('[clock: name="B" tick="1"]', state, clocks_ruleset)
        assert applied.receipt.reason == "unknown-clock" and applied.snapshot is state

    def test_keeps_clock_order(self, clocks_ruleset: Ruleset) -> None:
        """Ticking a clock keeps its place in the list."""
        state = clocks(("A", 4, 0), ("B", 4, 0), ("C", 4, 0))
        applied = run('[clock: name="B" tick="1"]', state, clocks_ruleset)
        assert [c.filled for c in applied.snapshot.ruleset_clocks] == [0, 1, 0]


class TestClear:
    def test_removes_the_clock(self, clocks_ruleset: Ruleset) -> None:
        """clear removes the named clock; now="cleared"."""
        applied = run('[clock: name="a" clear]', clocks(("A", 4, 1), ("B", 4, 0)), clocks_ruleset)
        assert applied.receipt.attr("now") == "cleared"
        assert [c.name for c in applied.snapshot.ruleset_clocks] == ["B"]

    def test_receipt_layout(self, clocks_ruleset: Ruleset) -> None:
        """The receipt writes name, the action, result and now, with the stored name."""
        applied = run('[clock: name="a" clear]', clocks(("A", 4, 1)), clocks_ruleset)
        assert applied.receipt.render() == '[clock: name="A" clear result="ok" now="cleared"]'


class TestRefusals:
    def test_without_clocks_in_the_ruleset(self) -> None:
        """A ruleset without `clocks` refuses clock tags with no-clocks."""
        plain = load_ruleset(FIXTURES / "rulesets" / "no-clocks.json")
        assert run('[clock: name="A" size="4"]', Snapshot(), plain).receipt.reason == "no-clocks"

    def test_exactly_one_action(self, clocks_ruleset: Ruleset) -> None:
        """A tag with no action or two actions is malformed."""
        state = clocks(("A", 4, 1))
        for text in ('[clock: name="A"]', '[clock: name="A" tick="1" size="4"]'):
            assert run(text, state, clocks_ruleset).receipt.reason == "malformed"

    def test_refusal_returns_the_same_snapshot(self, clocks_ruleset: Ruleset) -> None:
        """A refused command hands back the very snapshot it was given."""
        state = clocks(("A", 4, 1))
        applied = run('[clock: name="A" size="4"]', state, clocks_ruleset)
        assert applied.snapshot is state
