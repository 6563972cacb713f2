"""Tests for gmtags/sheet/wounds.py: the wound-track rules of seed 002."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmtags.sheet.wounds import (
    MAX_OVERFLOW,
    MAX_TRACK_LENGTH,
    BoxPenalty,
    FillMode,
    OnFull,
    PenaltyBy,
    WoundKind,
    WoundLevel,
    WoundOutcome,
    WoundState,
    WoundTrack,
    count_text,
    extend_levels,
    filled,
    find_kind,
    heal,
    mark,
    normalize,
    now_text,
    penalty,
    remaining,
    rest,
)

KNOCK = WoundKind("knock", "K", 0)
TEAR = WoundKind("tear", "T", 1)

HARM_LEVELS = (
    WoundLevel("Scuffed", 0),
    WoundLevel("Winded", -1),
    WoundLevel("Bleeding", -3),
    WoundLevel("Down", -99),
)

# 002, "Contadores de heridas: salud en una escala de marcas": the seed's own example.
HARM = WoundTrack("harm", "Harm", (KNOCK, TEAR), levels=HARM_LEVELS)

# 002, "Casillas numeradas en vez de niveles con nombre": the seed's `strain` track,
# here with three boxes (its max is the sheet's `strain_boxes`).
STRAIN = WoundTrack(
    "strain",
    "Strain",
    (WoundKind("strain", "S", 0),),
    boxes=3,
    box_penalty=BoxPenalty("remaining", ((0, -1), (1, 0))),
    fill="indexed",
    on_full="refuse",
)

# A three-step ladder, listed out of severity order on purpose.
LADDER = WoundTrack(
    "health",
    "Health",
    (WoundKind("lethal", "L", 5), WoundKind("bashing", "B", 1), WoundKind("agg", "A", 9)),
    levels=(WoundLevel("Hurt", 0), WoundLevel("Wounded", -1), WoundLevel("Crippled", -2)),
)

HARM_REFUSING = replace(HARM, on_full="refuse")


def marks(*ids: str, overflow: int = 0) -> WoundState:
    return WoundState(ids, overflow)


class TestWoundTrack:
    def test_the_seed_tracks_build(self) -> None:
        """The seed's harm and strain tracks are valid definitions."""
        assert HARM.length == 4
        assert STRAIN.length == 3
        assert HARM.ladder == (KNOCK, TEAR)

    def test_ladder_is_ordered_by_severity_not_declaration(self) -> None:
        """Only the order of severities matters, so the ladder sorts kinds by it."""
        assert [kind.id for kind in LADDER.ladder] == ["bashing", "lethal", "agg"]

    @pytest.mark.parametrize(
        ("changes", "message"),
        [
            ({"boxes": 3}, "exactly one of levels and boxes"),
            ({"levels": None}, "exactly one of levels and boxes"),
            ({"levels": ()}, "levels"),
            ({"levels": (WoundLevel("x", 0),) * 65}, "levels"),
            ({"kinds": ()}, "at least one kind"),
            ({"kinds": (KNOCK, WoundKind("knock", "X", 3))}, "repeats a kind id"),
            ({"kinds": (KNOCK, WoundKind("tear", "T", 0))}, "repeats a kind severity"),
            ({"box_penalty": BoxPenalty("filled", ((0, 0),))}, "box penalty but no boxes"),
        ],
    )
    def test_impossible_definitions_raise(self, changes: dict[str, object], message: str) -> None:
        """A definition no ruleset can declare is a programmer error, raised at once."""
        with pytest.raises(ValueError, match=message):
            replace(HARM, **changes)  # type: ignore[arg-type]

    @pytest.mark.parametrize("boxes", [-1, MAX_TRACK_LENGTH + 1])
    def test_box_count_stays_within_sixty_four(self, boxes: int) -> None:
        """002, numbered boxes: a track has up to 64 boxes, so the adapter clamps first."""
        with pytest.raises(ValueError, match="boxes"):
            replace(STRAIN, boxes=boxes)

    def test_indexed_track_always_refuses(self) -> None:
        """002, "Llenar por casilla…": an indexed track refuses whatever onFull says."""
        assert replace(STRAIN, on_full="upgrade").refuses
        assert not HARM.refuses
        assert HARM_REFUSING.refuses


class TestFindKind:
    def test_by_id(self) -> None:
        """The GM names a kind by its id."""
        assert find_kind(HARM, "tear") == TEAR

    def test_ignores_case_and_spaces(self) -> None:
        """A kind written in another case or with spaces around it is still found."""
        assert find_kind(HARM, "  Knock ") == KNOCK

    def test_by_label(self) -> None:
        """A kind's short label names it too, as in the reference engine."""
        assert find_kind(HARM, "t") == TEAR

    def test_unknown_and_empty(self) -> None:
        """A name the track does not declare finds nothing."""
        assert find_kind(HARM, "fire") is None
        assert find_kind(HARM, "  ") is None


class TestExtendLevels:
    def test_gravewatch_scar_joins_its_equal(self) -> None:
        """002, "Niveles que añade una lista": a -1 scar goes after Winded, named Winded."""
        levels = extend_levels(HARM_LEVELS, [(1, -1)])
        assert [level.label for level in levels] == [
            "Scuffed",
            "Winded",
            "Winded",
            "Bleeding",
            "Down",
        ]

    def test_new_penalty_is_named_by_the_penalty(self) -> None:
        """A penalty no level has goes after the last level at least as good, named by it."""
        levels = extend_levels(HARM_LEVELS, [(2, -2)])
        assert levels[2:4] == (WoundLevel("-2", -2), WoundLevel("-2", -2))
        assert levels[4].label == "Bleeding"

    def test_penalty_better_than_every_level_goes_first(self) -> None:
        """With no level at least as good, the row's levels go before all the others."""
        levels = extend_levels((WoundLevel("Hurt", -1),), [(1, 0)])
        assert levels == (WoundLevel("0", 0), WoundLevel("Hurt", -1))

    def test_worst_penalty_goes_last(self) -> None:
        """A penalty worse than every level's is added at the bottom."""
        assert extend_levels(HARM_LEVELS, [(1, -200)])[-1] == WoundLevel("-200", -200)

    def test_rows_apply_in_order(self) -> None:
        """Each row sees the levels the rows before it added."""
        levels = extend_levels(HARM_LEVELS, [(1, -2), (1, -2)])
        assert [level.label for level in levels][2:4] == ["-2", "-2"]

    def test_counts_and_penalties_are_held_to_their_range(self) -> None:
        """A row adds 0 to 16 levels with a penalty of -1000 to 0."""
        assert len(extend_levels(HARM_LEVELS, [(-3, -1)])) == 4
        assert len(extend_levels(HARM_LEVELS, [(40, -1)])) == 4 + 16
        assert extend_levels(HARM_LEVELS, [(1, 5)])[1] == WoundLevel("Scuffed", 0)
        assert extend_levels(HARM_LEVELS, [(1, -5000)])[-1].penalty == -1000

    def test_track_stops_at_sixty_four_levels(self) -> None:
        """A track is at most 64 levels in all, however many rows a list has."""
        assert len(extend_levels(HARM_LEVELS, [(16, -1)] * 10)) == MAX_TRACK_LENGTH

    def test_no_rows_keeps_the_levels(self) -> None:
        """A hidden list passes no rows and adds nothing."""
        assert extend_levels(HARM_LEVELS, []) == HARM_LEVELS


class TestNormalize:
    def test_sorts_most_severe_first(self) -> None:
        """002, "Las reglas exactas…": a hand-edited track reads sorted, most severe first."""
        assert normalize(HARM, marks("knock", "tear", "knock")) == marks("tear", "knock", "knock")

    def test_drops_kinds_the_track_does_not_declare(self) -> None:
        """A mark of an undeclared kind cannot sit on the ladder and is dropped."""
        assert normalize(HARM, marks("fire", "knock", "")) == marks("knock")

    def test_marks_that_no_longer_fit_become_overflow(self) -> None:
        """002, "Niveles que añade una lista": a deleted scar's marks are kept as overflow."""
        state = marks("tear", "tear", "knock", "knock", "knock", overflow=1)
        assert normalize(HARM, state) == marks("tear", "tear", "knock", "knock", overflow=2)

    def test_indexed_keeps_boxes_and_trims_the_end(self) -> None:
        """SPEC §9: an indexed track stores box by box, "" for empty; trailing empties go."""
        assert normalize(STRAIN, marks("", "strain", "", "")) == marks("", "strain")

    def test_indexed_marks_past_the_last_box_become_overflow(self) -> None:
        """A box count that went down keeps the marks past it as overflow."""
        state = marks("strain", "", "", "strain", "", "strain")
        assert normalize(STRAIN, state) == marks("strain", overflow=2)

    def test_negative_overflow_reads_as_zero(self) -> None:
        """A corrupt negative overflow reads as none."""
        assert normalize(HARM, marks("knock", overflow=-4)) == marks("knock")

    def test_overflow_is_held_at_its_maximum(self) -> None:
        """Stored overflow never grows past MAX_OVERFLOW."""
        assert normalize(HARM, marks(overflow=MAX_OVERFLOW * 5)).overflow == MAX_OVERFLOW


class TestCounts:
    def test_filled_and_remaining(self) -> None:
        """A track's value is its marks; overflow is not a mark."""
        state = marks("tear", "tear", "tear", "tear", overflow=3)
        assert filled(HARM, state) == 4
        assert remaining(HARM, state) == 0
        assert filled(STRAIN, marks("", "strain")) == 1
        assert remaining(STRAIN, marks("", "strain")) == 2


class TestMark:
    def test_first_mark_on_an_empty_track(self) -> None:
        """002, "Marcar durante el juego.": kind="knock" amount="1" marks one knock."""
        outcome = mark(HARM, WoundState(), "knock", 1)
        assert outcome == WoundOutcome(marks("knock"))
        assert not outcome.refused

    def test_severe_mark_is_inserted_above_lighter_ones(self) -> None:
        """002, "Las reglas exactas…": a mark goes in by severity and pushes lighter ones down."""
        assert mark(HARM, marks("knock", "knock"), "tear", 1).state == marks(
            "tear", "knock", "knock"
        )

    def test_light_mark_goes_below_severe_ones(self) -> None:
        """A lighter mark takes the highest level its severity earns, below the severe ones."""
        assert mark(HARM, marks("tear"), "knock", 1).state == marks("tear", "knock")

    def test_three_kind_insertion_keeps_the_order(self) -> None:
        """A middle-severity mark lands between the heavier and the lighter marks."""
        state = mark(LADDER, marks("agg", "bashing"), "lethal", 1).state
        assert state == marks("agg", "lethal", "bashing")

    def test_amount_applies_one_mark_at_a_time(self) -> None:
        """002: filling partway through a command follows the same rule as starting full."""
        outcome = mark(HARM, marks("tear", "knock"), "knock", 3)
        # Two knocks fill the track; the third raises the lightest knock to a tear.
        assert outcome.state == marks("tear", "tear", "knock", "knock")
        assert outcome.overflow_grew == 0

    def test_full_track_raises_its_lightest_mark(self) -> None:
        """002: marking a full track raises the lightest mark one step, adding nothing."""
        state = marks("tear", "knock", "knock", "knock")
        assert mark(HARM, state, "knock", 1).state == marks("tear", "tear", "knock", "knock")

    def test_incoming_kind_does_not_matter_on_a_full_track(self) -> None:
        """002: the raise is one step up the ladder whatever the new mark's kind."""
        state = marks("tear", "knock", "knock", "knock")
        assert mark(HARM, state, "tear", 1) == mark(HARM, state, "knock", 1)

    def test_raise_is_one_step_not_to_the_incoming_kind(self) -> None:
        """On a three-kind ladder a bashing mark becomes lethal, even when agg comes in."""
        state = marks("bashing", "bashing", "bashing")
        assert mark(LADDER, state, "agg", 1).state == marks("lethal", "bashing", "bashing")

    def test_raised_mark_moves_above_its_old_equals(self) -> None:
        """A raised mark is re-placed by severity, so the track stays sorted."""
        state = marks("agg", "bashing", "bashing")
        assert mark(LADDER, state, "bashing", 1).state == marks("agg", "lethal", "bashing")

    def test_worst_kind_everywhere_overflows(self) -> None:
        """002: a mark past the worst kind on a full track counts as overflow, and is kept."""
        outcome = mark(HARM, marks("tear", "tear", "tear", "tear", overflow=1), "knock", 2)
        assert outcome.state == marks("tear", "tear", "tear", "tear", overflow=3)
        assert outcome.overflow_grew == 2

    def test_huge_amount_is_counted_not_looped(self) -> None:
        """An amount of 10¹⁵ fills, raises every knock once, and counts the rest at once (a
        loop of one mark per point would never end)."""
        huge = 10**15
        outcome = mark(HARM, WoundState(), "knock", huge)
        assert outcome.state == marks("tear", "tear", "tear", "tear", overflow=MAX_OVERFLOW)
        assert outcome.overflow_grew == huge - 8

    def test_stored_overflow_is_held_but_the_spill_is_reported(self) -> None:
        """Overflow stops at MAX_OVERFLOW while the receipt still says what spilled."""
        outcome = mark(HARM, marks("tear", "tear", "tear", "tear"), "tear", 10**12)
        assert outcome.state.overflow == MAX_OVERFLOW
        assert outcome.overflow_grew == 10**12

    def test_unknown_kind_is_refused(self) -> None:
        """ENGINE-NOTES §7: damage of a kind the track does not declare is refused."""
        state = marks("knock")
        outcome = mark(HARM, state, "fire", 1)
        assert outcome.reason == "unknown-kind"
        assert outcome.state is state

    @pytest.mark.parametrize("amount", [0, -1, -100])
    def test_amount_below_one_is_refused(self, amount: int) -> None:
        """The caller sends negative amounts to heal; mark refuses anything below 1."""
        assert mark(HARM, WoundState(), "knock", amount).reason == "bad-amount"

    def test_kind_written_as_label(self) -> None:
        """A kind written as its label marks that kind."""
        assert mark(HARM, WoundState(), "T", 1).state == marks("tear")

    def test_refusing_track_refuses_the_whole_command(self) -> None:
        """002, "Llenar por casilla…": three marks with two free places place none."""
        state = marks("tear", "knock")
        outcome = mark(HARM_REFUSING, state, "knock", 3)
        assert outcome.reason == "no-box"
        assert outcome.state is state

    def test_refusing_track_takes_what_fits(self) -> None:
        """A refusing track places the marks when every one of them fits."""
        outcome = mark(HARM_REFUSING, marks("knock", "knock"), "tear", 2)
        assert outcome == WoundOutcome(marks("tear", "tear", "knock", "knock"))

    def test_indexed_mark_lands_in_the_named_box(self) -> None:
        """002: box="3" puts the mark in box 3, leaving the boxes before it empty."""
        assert mark(STRAIN, WoundState(), "strain", 1, box=3).state == marks("", "", "strain")

    def test_indexed_mark_without_box_takes_the_first(self) -> None:
        """An indexed mark with no box starts at the first box."""
        assert mark(STRAIN, WoundState(), "strain", 1).state == marks("strain")

    def test_indexed_mark_moves_up_to_the_next_free_box(self) -> None:
        """A taken box sends the mark to the next free one above; placed marks never move."""
        outcome = mark(STRAIN, marks("", "strain"), "strain", 2, box=1)
        assert outcome.state == marks("strain", "strain", "strain")

    def test_indexed_refuses_when_boxes_above_are_taken(self) -> None:
        """Three marks with two free boxes from box 1 place none (002, onFull refuse)."""
        state = marks("", "strain")
        outcome = mark(STRAIN, state, "strain", 3)
        assert outcome.reason == "no-box"
        assert outcome.state is state

    def test_indexed_does_not_look_below_the_named_box(self) -> None:
        """Free boxes below the named one do not count: the mark goes up, never down."""
        assert mark(STRAIN, marks("", "", "strain"), "strain", 1, box=3).reason == "no-box"

    def test_indexed_box_past_the_track_is_refused(self) -> None:
        """A box beyond the last one has no free box above it."""
        assert mark(STRAIN, WoundState(), "strain", 1, box=9).reason == "no-box"

    def test_box_below_one_is_a_bad_amount(self) -> None:
        """Boxes count from 1, so box="0" is refused as the reference engine does."""
        assert mark(STRAIN, WoundState(), "strain", 1, box=0).reason == "bad-amount"

    def test_indexed_track_with_upgrade_still_refuses(self) -> None:
        """002: an indexed track always refuses, whatever its onFull."""
        track = replace(STRAIN, on_full="upgrade")
        assert mark(track, marks("strain", "strain", "strain"), "strain", 1).reason == "no-box"

    def test_box_is_ignored_on_a_sequential_track(self) -> None:
        """box= only means something on an indexed track."""
        assert mark(HARM, WoundState(), "knock", 1, box=3).state == marks("knock")

    def test_empty_box_track_overflows_or_refuses(self) -> None:
        """A track of zero boxes spills every mark, or refuses when it is a refusing track."""
        sequential = replace(STRAIN, boxes=0, fill="sequential", on_full="upgrade")
        outcome = mark(sequential, WoundState(), "strain", 5)
        assert outcome.state == marks(overflow=5)
        assert mark(replace(STRAIN, boxes=0), WoundState(), "strain", 1).reason == "no-box"

    def test_input_state_is_not_changed(self) -> None:
        """A mark returns a new state and leaves the one it was given as it was."""
        state = marks("knock", "tear")
        mark(HARM, state, "tear", 3)
        assert state == marks("knock", "tear")

    @given(st.data())
    def test_marks_stay_sorted_most_severe_first(self, data: st.DataObject) -> None:
        """On a sequential track every mark command leaves the marks sorted most severe first."""
        track = data.draw(sequential_tracks())
        state = data.draw(states(track))
        outcome = mark(track, state, data.draw(kind_names(track)), data.draw(amounts))
        stored = normalize(track, state) if outcome.refused else outcome.state
        ranks = {kind.id: kind.severity for kind in track.kinds}
        severities = [ranks[kind] for kind in stored.marks]
        assert severities == sorted(severities, reverse=True)

    @given(st.data())
    def test_mark_count_never_exceeds_the_track(self, data: st.DataObject) -> None:
        """However much damage lands, a track never holds more marks than its length."""
        track = data.draw(tracks())
        state = data.draw(states(track))
        box = data.draw(st.none() | st.integers(-2, 12))
        outcome = mark(track, state, data.draw(kind_names(track)), data.draw(amounts), box)
        stored = normalize(track, state) if outcome.refused else outcome.state
        assert len(stored.marks) <= track.length
        assert filled(track, stored) <= track.length

    @given(st.data())
    def test_refused_mark_leaves_the_state_identical(self, data: st.DataObject) -> None:
        """A refused command changes nothing: the very state given comes back."""
        track = data.draw(tracks())
        state = data.draw(states(track))
        box = data.draw(st.none() | st.integers(-2, 12))
        outcome = mark(track, state, data.draw(kind_names(track)), data.draw(amounts), box)
        if outcome.refused:
            assert outcome.state is state
            assert outcome.overflow_grew == 0

    @given(st.data())
    def test_amount_equals_single_marks_in_a_row(self, data: st.DataObject) -> None:
        """002: an amount is marks applied one at a time, so N at once equals N singles."""
        track = data.draw(sequential_tracks().filter(lambda track: not track.refuses))
        state = data.draw(states(track))
        kind = data.draw(st.sampled_from(track.kinds)).id
        amount = data.draw(st.integers(1, 30))
        whole = mark(track, state, kind, amount)
        single = normalize(track, state)
        grew = 0
        for _ in range(amount):
            step = mark(track, single, kind, 1)
            single, grew = step.state, grew + step.overflow_grew
        assert whole.state == single
        assert whole.overflow_grew == grew

    @given(st.data())
    def test_result_is_already_normalized(self, data: st.DataObject) -> None:
        """What a mark stores reads back unchanged."""
        track = data.draw(tracks())
        state = data.draw(states(track))
        outcome = mark(track, state, data.draw(kind_names(track)), data.draw(amounts))
        if not outcome.refused:
            assert normalize(track, outcome.state) == outcome.state


class TestHeal:
    def test_overflow_heals_first(self) -> None:
        """002, "Las reglas exactas…": healing removes overflow before any mark."""
        state = marks("tear", "tear", "tear", "tear", overflow=2)
        assert heal(HARM, state, 1).state == marks("tear", "tear", "tear", "tear", overflow=1)
        assert heal(HARM, state, 3).state == marks("tear", "tear", "tear")

    def test_lightest_marks_heal_first(self) -> None:
        """A heal that names no kind removes the lightest mark first."""
        assert heal(HARM, marks("tear", "knock", "knock"), 2).state == marks("tear")

    def test_named_kind_heals_only_that_kind(self) -> None:
        """002: a heal naming a kind clears only that kind (the bashing heals, the lethal stays)."""
        state = marks("tear", "tear", "knock")
        assert heal(HARM, state, 1, "tear").state == marks("tear", "knock")
        assert heal(HARM, state, 5, "knock").state == marks("tear", "tear")

    def test_named_kind_still_clears_overflow_first(self) -> None:
        """Overflow has no kind, so it comes off before marks even when a kind is named."""
        state = marks("tear", "tear", "tear", "tear", overflow=1)
        assert heal(HARM, state, 2, "knock").state == marks("tear", "tear", "tear", "tear")

    def test_named_kind_with_no_such_marks_removes_nothing(self) -> None:
        """Healing a kind the track holds no marks of changes nothing and is not refused."""
        outcome = heal(HARM, marks("tear"), 1, "knock")
        assert outcome == WoundOutcome(marks("tear"))

    def test_unknown_kind_heals_lightest_first(self) -> None:
        """ENGINE-NOTES §7: a heal naming no kind of the track clears the lightest first."""
        outcome = heal(HARM, marks("tear", "knock"), 1, "fire")
        assert outcome == WoundOutcome(marks("tear"))

    def test_heal_on_an_empty_track(self) -> None:
        """Healing an untouched track is not refused and leaves it empty."""
        assert heal(HARM, WoundState(), 3) == WoundOutcome(WoundState())

    def test_huge_heal_clears_everything(self) -> None:
        """A heal bigger than the damage clears the track and its overflow, without looping."""
        state = marks("tear", "tear", "tear", "tear", overflow=MAX_OVERFLOW)
        assert heal(HARM, state, 10**9).state == WoundState()

    @pytest.mark.parametrize("amount", [0, -2])
    def test_amount_below_one_is_refused(self, amount: int) -> None:
        """The caller turns a negative damage amount into a positive heal; 0 is refused."""
        state = marks("knock")
        outcome = heal(HARM, state, amount)
        assert outcome.reason == "bad-amount"
        assert outcome.state is state

    def test_indexed_heal_takes_the_highest_box(self) -> None:
        """002, "Llenar por casilla…": a heal removes the highest of the lightest marks."""
        assert heal(STRAIN, marks("strain", "", "strain"), 1).state == marks("strain")

    def test_indexed_heal_takes_the_lightest_before_the_highest(self) -> None:
        """On an indexed track a lighter mark heals before a heavier one in a higher box."""
        track = WoundTrack("grit", "Grit", (KNOCK, TEAR), boxes=4, fill="indexed", on_full="refuse")
        state = marks("knock", "", "tear", "knock")
        assert heal(track, state, 1).state == marks("knock", "", "tear")
        assert heal(track, state, 2).state == marks("", "", "tear")

    @given(st.data())
    def test_amount_equals_single_heals_in_a_row(self, data: st.DataObject) -> None:
        """Healing N at once equals healing one N times, on every kind of track."""
        track = data.draw(tracks())
        state = data.draw(states(track))
        kind = data.draw(st.none() | kind_names(track))
        amount = data.draw(st.integers(1, 20))
        single = normalize(track, state)
        for _ in range(amount):
            single = heal(track, single, 1, kind).state
        assert heal(track, state, amount, kind).state == single

    @given(st.data())
    def test_heal_never_adds_damage(self, data: st.DataObject) -> None:
        """A heal never raises the marks or the overflow."""
        track = data.draw(tracks())
        state = normalize(track, data.draw(states(track)))
        outcome = heal(track, state, data.draw(amounts), data.draw(st.none() | kind_names(track)))
        assert filled(track, outcome.state) <= filled(track, state)
        assert outcome.state.overflow <= state.overflow


class TestRest:
    def test_to_min_clears_marks_and_overflow(self) -> None:
        """002, "Un descanso puede curar heridas.": "to" min leaves no marks, overflow included."""
        state = marks("tear", "tear", "knock", "knock", overflow=2)
        assert rest(HARM, state, to="min").state == WoundState()

    def test_to_counts_overflow_as_marks(self) -> None:
        """A "to" of N leaves N marks counting the overflow, which goes first."""
        state = marks("tear", "tear", "knock", "knock", overflow=2)
        assert rest(HARM, state, to=4).state == marks("tear", "tear", "knock", "knock")
        assert rest(HARM, state, to=3).state == marks("tear", "tear", "knock")

    def test_to_max_clears_only_the_overflow(self) -> None:
        """A "to" of max on a full track leaves it full and takes the overflow away."""
        state = marks("tear", "tear", "tear", "tear", overflow=5)
        assert rest(HARM, state, to="max").state == marks("tear", "tear", "tear", "tear")

    def test_negative_by_removes_that_many_overflow_first(self) -> None:
        """002: by {const: -2} removes two, starting with the overflow."""
        state = marks("tear", "tear", "tear", "tear", overflow=1)
        assert rest(HARM, state, by=-2).state == marks("tear", "tear", "tear")

    @pytest.mark.parametrize("step", [{"by": 2}, {"by": 0}, {"to": 3}, {"to": "max"}])
    def test_step_that_would_add_marks_is_skipped(self, step: dict[str, int | str]) -> None:
        """002: a rest never causes damage, so a step that would add marks does nothing."""
        state = marks("tear", "knock")
        assert rest(HARM, state, **step) == WoundOutcome(state)  # type: ignore[arg-type]

    def test_kind_step_clears_only_that_kind(self) -> None:
        """Gravewatch's "Catch your breath" (kind knock, to min) heals knocks, leaves tears."""
        state = marks("tear", "knock", "knock")
        assert rest(HARM, state, to="min", kind_id="knock").state == marks("tear")

    def test_needs_exactly_one_of_to_and_by(self) -> None:
        """A rest step with both or neither of to and by is a programmer error."""
        with pytest.raises(ValueError, match="exactly one"):
            rest(HARM, WoundState())
        with pytest.raises(ValueError, match="exactly one"):
            rest(HARM, WoundState(), to=0, by=-1)

    def test_indexed_rest(self) -> None:
        """A rest on an indexed track removes the highest boxes first."""
        state = marks("strain", "strain", "strain")
        assert rest(STRAIN, state, by=-2).state == marks("strain")


class TestPenalty:
    @pytest.mark.parametrize(
        ("state", "expected"),
        [
            (marks(), 0),
            (marks("knock"), 0),
            (marks("tear", "knock"), -1),
            (marks("tear", "knock", "knock"), -3),
            (marks("tear", "tear", "tear", "tear"), -99),
        ],
    )
    def test_lowest_marked_level_not_the_sum(self, state: WoundState, expected: int) -> None:
        """002, "Las reglas exactas…": three marks give -3, not 0 + -1 + -3."""
        assert penalty(HARM, state) == expected

    def test_overflow_does_not_deepen_the_penalty(self) -> None:
        """Overflow sits past the last level; the penalty stays the last level's."""
        assert penalty(HARM, marks("tear", "tear", "tear", "tear", overflow=9)) == -99

    def test_levels_added_by_a_list_count(self) -> None:
        """002, "Niveles que añade una lista": a scar level takes its place in the penalties."""
        track = replace(HARM, levels=extend_levels(HARM_LEVELS, [(1, -1)]))
        assert penalty(track, marks("tear", "knock", "knock")) == -1
        assert penalty(track, marks("tear", "knock", "knock", "knock")) == -3

    @pytest.mark.parametrize(
        ("state", "expected"),
        [
            (marks(), 0),
            (marks("strain", "strain"), 0),
            (marks("strain", "strain", "strain"), -1),
        ],
    )
    def test_strain_reads_the_boxes_remaining(self, state: WoundState, expected: int) -> None:
        """002, "Casillas numeradas…": the strain table costs -1 once no box remains."""
        assert penalty(STRAIN, state) == expected

    def test_boxes_do_not_care_which_are_marked(self) -> None:
        """The box penalty depends on how many boxes are marked, never on which."""
        track = replace(STRAIN, box_penalty=BoxPenalty("filled", ((0, 0), (2, -2))))
        assert penalty(track, marks("", "strain", "strain")) == -2
        assert penalty(track, marks("strain", "strain")) == -2

    def test_table_may_cost_something_with_no_mark(self) -> None:
        """002: the table is read whatever the count, so it can cost something unmarked."""
        track = replace(STRAIN, box_penalty=BoxPenalty("filled", ((0, -1), (2, -2))))
        assert penalty(track, WoundState()) == -1

    def test_count_below_the_first_threshold_gets_the_first_value(self) -> None:
        """A step table read below its first threshold gives its first value."""
        track = replace(STRAIN, box_penalty=BoxPenalty("filled", ((2, -1), (3, -4))))
        assert penalty(track, marks("strain")) == -1
        assert penalty(track, marks("strain", "strain", "strain")) == -4

    def test_boxes_without_a_table_cost_nothing(self) -> None:
        """A box track with no penalty table never penalises."""
        assert penalty(replace(STRAIN, box_penalty=None), marks("strain", "strain")) == 0

    def test_indexed_levels_read_the_lowest_marked_box(self) -> None:
        """On an indexed track with named levels the furthest-down marked level sets it."""
        track = replace(HARM, fill="indexed", on_full="refuse")
        assert penalty(track, marks("", "", "knock")) == -3


class TestNowText:
    def test_named_levels_name_the_lowest_marked_level(self) -> None:
        """SPEC §3: a wound receipt reads like `Harm 3/4 Bleeding`."""
        assert now_text(HARM, marks("tear", "knock", "knock")) == "Harm 3/4 Bleeding"

    def test_overflow_grew_is_said(self) -> None:
        """SPEC §3: ` +N over` follows when the command's overflow grew."""
        outcome = mark(HARM, marks("tear", "tear", "tear", "tear"), "knock", 2)
        assert now_text(HARM, outcome.state, outcome.overflow_grew) == "Harm 4/4 Down +2 over"

    def test_overflow_that_did_not_grow_is_not_said(self) -> None:
        """Standing overflow is not repeated on a command that did not add to it."""
        assert now_text(HARM, marks("tear", "tear", "tear", "tear", overflow=3)) == "Harm 4/4 Down"

    def test_empty_track_names_no_level(self) -> None:
        """With nothing marked there is no level to name."""
        assert now_text(HARM, WoundState()) == "Harm 0/4"

    def test_numbered_boxes_show_only_the_count(self) -> None:
        """002, "Casillas numeradas…": boxes say how many are marked, not a level."""
        assert now_text(STRAIN, marks("", "strain")) == "Strain 1/3"

    def test_count_text_for_a_rest(self) -> None:
        """ENGINE-NOTES §7: a rest reports a wound track as `Label filled/length`."""
        assert count_text(HARM, marks("tear", "knock")) == "Harm 2/4"


# Hypothesis strategies: small wound tracks of every shape and states that may be
# stale or hand-edited (unknown kinds, empty boxes, too many marks, odd overflow).

amounts = st.integers(-3, 40) | st.integers(10**4, 10**6)
FILLS: tuple[FillMode, ...] = ("sequential", "indexed")
ON_FULLS: tuple[OnFull, ...] = ("upgrade", "refuse")
PENALTY_BYS: tuple[PenaltyBy, ...] = ("filled", "remaining")


@st.composite
def _kinds(draw: st.DrawFn) -> tuple[WoundKind, ...]:
    severities = draw(st.lists(st.integers(-100, 100), min_size=1, max_size=4, unique=True))
    return tuple(
        WoundKind(f"k{index}", f"L{index}", severity) for index, severity in enumerate(severities)
    )


@st.composite
def tracks(draw: st.DrawFn, sequential_only: bool = False) -> WoundTrack:
    kinds = draw(_kinds())
    fill: FillMode = "sequential"
    if not sequential_only:
        fill = draw(st.sampled_from(FILLS))
    on_full = draw(st.sampled_from(ON_FULLS))
    if draw(st.booleans()):
        penalties = sorted(
            draw(st.lists(st.integers(-10, 0), min_size=1, max_size=7)), reverse=True
        )
        levels = tuple(WoundLevel(f"Level {i}", p) for i, p in enumerate(penalties))
        return WoundTrack("t", "Track", kinds, levels=levels, fill=fill, on_full=on_full)
    table = ((0, 0), (2, -1), (4, -2))
    by = draw(st.sampled_from(PENALTY_BYS))
    boxes = draw(st.integers(0, 7))
    return WoundTrack(
        "t",
        "Track",
        kinds,
        boxes=boxes,
        box_penalty=BoxPenalty(by, table),
        fill=fill,
        on_full=on_full,
    )


def sequential_tracks() -> st.SearchStrategy[WoundTrack]:
    return tracks(sequential_only=True)


def states(track: WoundTrack) -> st.SearchStrategy[WoundState]:
    ids = [kind.id for kind in track.kinds]
    stored = st.sampled_from([*ids, "", "gone"])
    return st.builds(
        WoundState,
        st.lists(stored, max_size=track.length + 3).map(tuple),
        st.integers(-2, 6),
    )


def kind_names(track: WoundTrack) -> st.SearchStrategy[str]:
    return st.sampled_from([*(kind.id for kind in track.kinds), "gone"])
