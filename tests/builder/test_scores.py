"""Ability scores in the builder (004): point buy with the 5e table, and what picks add.

Each test is one of the seed's rules with its own example where it gives one:
the 5e point buy of 27, the half-elf's +2 Charisma and two +1s, the SRD's
ability score improvement with `upTo: 20`, Pathfinder 2e's `partialFrom: 4`.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmtags.builder.scores import (
    Chosen,
    Granted,
    grant_scores,
    nearest_table_score,
    offered_scores,
    point_buy,
    point_cost,
)
from gmtags.ruleset.catalogs import AbilityChoice

FIVE_E_COSTS = [(8, 0), (9, 1), (10, 2), (11, 3), (12, 4), (13, 5), (14, 7), (15, 9)]
"""004's 5e point-buy table (BUILDER B11): every score starts at 8."""

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
HIGHS = dict.fromkeys(ABILITIES, 20)


def choice(**keys: Any) -> AbilityChoice:
    return AbilityChoice.model_validate(keys)


HALF_ELF_ADD = {"cha": 2}
HALF_ELF_CHOICE = choice(count=2, amount=1, **{"except": ["cha"]})
"""004's half-elf: `add {cha: 2}` and `choose {count: 2, amount: 1, except: [cha]}`."""

ASI = choice(count=2, amount=1, repeat=True, upTo=20)
"""004: the SRD improvement, "no puede aumentar una puntuación de atributo por encima de 20"."""


def scores(**values: int) -> dict[str, int]:
    return {ability: values.get(ability, 10) for ability in ABILITIES}


class TestPointBuy:
    def test_27_buys_three_fifteens(self) -> None:
        """BUILDER B11: 27 = 15, 15, 15, 8, 8, 8 (9 + 9 + 9)."""
        spent = point_buy(FIVE_E_COSTS, 27, {"str": 15, "dex": 15, "con": 15}, ABILITIES)
        assert (spent.spent, spent.remaining, spent.pending) == (27, 0, 0)

    def test_every_score_starts_at_the_lowest(self) -> None:
        """004: all scores start at the lowest table value, which costs nothing."""
        assert point_buy(FIVE_E_COSTS, 27, {}, ABILITIES).remaining == 27

    def test_the_cumulative_cost(self) -> None:
        """Each +1 costs per the table: 14 costs 7 in all, 15 costs 9."""
        assert [point_cost(FIVE_E_COSTS, s) for s in (8, 13, 14, 15, 16)] == [0, 5, 7, 9, None]

    def test_overspent_is_never_refused(self) -> None:
        """BUILDER §3.12: remaining goes negative and the badge counts it."""
        spent = point_buy(FIVE_E_COSTS, 27, dict.fromkeys(ABILITIES, 14), ABILITIES)
        assert (spent.spent, spent.remaining, spent.pending) == (42, -15, 1)

    def test_a_score_off_the_table(self) -> None:
        """A typed 17 is written as answered, priced at nothing, and counted in the badge."""
        spent = point_buy(FIVE_E_COSTS, 27, {"str": 17, "dex": 15}, ABILITIES)
        assert (spent.spent, spent.off_table, spent.pending) == (9, ("str",), 1)

    @pytest.mark.parametrize(("written", "start"), [(18, 15), (3, 8), (12, 12), (7, 8)])
    def test_a_hand_written_score_starts_at_the_nearest(self, written: int, start: int) -> None:
        """004: "una puntuación escrita a mano parte de la puntuación más cercana de la tabla"."""
        assert nearest_table_score(FIVE_E_COSTS, written) == start

    def test_equally_near_is_the_lower(self) -> None:
        table = [(8, 0), (10, 2)]
        assert nearest_table_score(table, 9) == 8


class TestAdd:
    def test_the_half_elf_adds_two_charisma(self) -> None:
        granted = grant_scores(scores(cha=15), HIGHS, [("race/half-elf", HALF_ELF_ADD)], [])
        assert granted.scores["cha"] == 17 and granted.added("cha") == 2

    def test_no_score_passes_its_max(self) -> None:
        """004: "ninguna puntuación supera su max"; the raise is what it really added."""
        granted = grant_scores(scores(cha=19), HIGHS, [("race/half-elf", HALF_ELF_ADD)], [])
        assert granted.scores["cha"] == 20 and granted.added("cha") == 1

    def test_a_computed_ability_is_never_raised(self) -> None:
        """004 (1.156): "El creador nunca fija una"."""
        granted = grant_scores(
            scores(), HIGHS, [("x", {"wis": 2})], [], computed=frozenset({"wis"})
        )
        assert granted.scores["wis"] == 10 and granted.raises == ()


class TestChoose:
    def test_the_half_elf_two_plus_ones(self) -> None:
        """004: two scores, never one twice, never Charisma (its `except`)."""
        slot = Chosen("race/half-elf/abilities.0", HALF_ELF_CHOICE, ["dex", "con"])
        granted = grant_scores(scores(cha=15), HIGHS, [("race/half-elf", HALF_ELF_ADD)], [slot])
        assert (granted.scores["dex"], granted.scores["con"], granted.scores["cha"]) == (11, 11, 17)
        assert granted.inactive == ()

    def test_except_and_repeats_count_for_nothing(self) -> None:
        slot = Chosen("k", HALF_ELF_CHOICE, ["cha", "dex", "dex", "con", "int"])
        granted = grant_scores(scores(), HIGHS, [], [slot])
        reasons = [(i.answer, i.reason) for i in granted.inactive]
        assert reasons == [
            ("cha", "not offered by this choice"),
            ("dex", "already chosen"),
            ("int", "the choice takes 2"),
        ]
        assert granted.added("dex") == granted.added("con") == 1

    def test_from_limits_the_scores(self) -> None:
        """BUILDER B21: `from` intersected with the sheet's abilities and `except`."""
        restricted = choice(count=1, amount=1, **{"from": ["str", "dex", "luck"]})
        assert offered_scores(restricted, ABILITIES) == ["str", "dex"]

    def test_exclude_choices(self) -> None:
        """004 `excludeChoices`: a free boost cannot take what the restricted slot took."""
        restricted = Chosen("background/restricted", choice(count=1, amount=1), ["str"])
        free = Chosen(
            "background/free", choice(count=1, amount=1), ["str"], excluded=frozenset({"str"})
        )
        granted = grant_scores(scores(), HIGHS, [], [restricted, free])
        assert granted.added("str") == 1
        assert [(i.source, i.reason) for i in granted.inactive] == [
            ("background/free", "not offered by this choice")
        ]

    def test_repeat_gives_plus_two_to_one(self) -> None:
        """004: {count: 2, amount: 1, repeat: true} is +2 to one score or +1 to two."""
        granted = grant_scores(scores(str=16), HIGHS, [], [Chosen("k", ASI, ["str", "str"])])
        assert granted.scores["str"] == 18

    def test_up_to_twenty(self) -> None:
        """004: upTo 20 after every other grant; a score already at 20 is disabled."""
        granted = grant_scores(
            scores(str=18), HIGHS, [("feat", {"str": 1})], [Chosen("k", ASI, ["str", "str"])]
        )
        assert granted.scores["str"] == 20
        assert [(i.answer, i.reason) for i in granted.inactive] == [("str", "already at 20")]

    def test_count_from_the_sheet(self) -> None:
        """A choice counted from the sheet (countFrom, floored, at most max) takes that many."""
        counted = choice(countFrom={"const": 3}, max=3, amount=1)
        granted = grant_scores(scores(), HIGHS, [], [Chosen("k", counted, ABILITIES, count=2)])
        assert len(granted.raises) == 2 and len(granted.inactive) == 4


class TestPartialFrom:
    PF2E = choice(count=1, amount=1, partialFrom=4)
    """004: Pathfinder 2e's later boosts read amount 1, partialFrom 4."""

    def test_a_plus_four_needs_two_boosts_to_reach_five(self) -> None:
        """004: "un modificador de +4 necesita dos mejoras para llegar a +5"."""
        slots = [Chosen(f"level{n}", self.PF2E, ["str"]) for n in (5, 10)]
        one = grant_scores({"str": 4}, {"str": 20}, [], slots[:1])
        two = grant_scores({"str": 4}, {"str": 20}, [], slots)
        assert (one.scores["str"], two.scores["str"]) == (4, 5)
        assert one.raises[0].partial

    def test_in_the_order_made_after_each_full_boost(self) -> None:
        """004: "Las elecciones cuentan en el orden en que las hace el creador, después de cada
        aumento completo": +3 → +4 is full, then two partials make +5."""
        slots = [Chosen(f"level{n}", self.PF2E, ["str"]) for n in (5, 10, 15)]
        steps = [
            grant_scores({"str": 3}, {"str": 20}, [], slots[:n]).scores["str"] for n in (1, 2, 3)
        ]
        assert steps == [4, 4, 5]

    def test_combines_with_up_to(self) -> None:
        capped = choice(count=1, amount=1, partialFrom=4, upTo=4)
        granted = grant_scores({"str": 4}, {"str": 20}, [], [Chosen("k", capped, ["str"])])
        assert granted.scores["str"] == 4 and granted.inactive[0].reason == "already at 4"


class TestDeselection:
    def test_unpicking_removes_exactly_what_was_added(self) -> None:
        """004, "Deseleccionar retira…": a +2 clamped to +1 at 19 gives back exactly 1."""
        base = scores(cha=19)
        with_pick = grant_scores(base, HIGHS, [("race/half-elf", HALF_ELF_ADD)], [])
        without = grant_scores(base, HIGHS, [], [])
        assert with_pick.scores["cha"] - with_pick.added("cha") == without.scores["cha"] == 19


SCORES = st.dictionaries(st.sampled_from(ABILITIES), st.integers(1, 20), min_size=6, max_size=6)
ADDS = st.lists(
    st.tuples(st.text(max_size=4), st.dictionaries(st.sampled_from(ABILITIES), st.integers(1, 4))),
    max_size=4,
)
SLOTS = st.lists(
    st.builds(
        lambda count, repeat, up, answers: Chosen(
            "k", choice(count=count, amount=1, repeat=repeat, upTo=up), answers
        ),
        st.integers(1, 3),
        st.booleans(),
        st.none() | st.integers(10, 20),
        st.lists(st.sampled_from([*ABILITIES, "luck"]), max_size=5),
    ),
    max_size=3,
)


@given(base=SCORES, adds=ADDS, slots=SLOTS)
def test_raises_add_up_and_never_pass_a_max(
    base: dict[str, int], adds: list[tuple[str, dict[str, int]]], slots: list[Chosen]
) -> None:
    """Every score is its base plus the raises recorded, never past its max, never lowered."""
    granted: Granted = grant_scores(base, HIGHS, adds, slots)
    for ability in ABILITIES:
        assert granted.scores[ability] == base[ability] + granted.added(ability)
        assert base[ability] <= granted.scores[ability] <= max(base[ability], HIGHS[ability])
