"""Training from the builder's picks (004, "trained entrena habilidades y salvaciones…").

5e's tiers: none (untrained), half, proficient, expertise; a 5e builder sets
`"tier": "proficient"` (004: "una ficha que ofrece un medio nivel (como las
habilidades de 5e) fija "tier": "proficient"").
"""

from __future__ import annotations

from typing import Any

from gmtags.builder.training import Slot, Tiers, Training, What
from gmtags.ruleset.catalogs import TrainingChoice

ORDER = ("none", "half", "proficient", "expertise")
FIVE_E = Tiers(ORDER, builder="proficient")
SKILLS = ("acrobatics", "arcana", "athletics", "history", "insight", "perception", "stealth")
SAVES = ("str", "dex", "wis")


def training(tiers: Tiers = FIVE_E, **manual: str) -> Training:
    ids: dict[What, tuple[str, ...]] = {"skills": SKILLS, "saves": SAVES}
    return Training(tiers, ids, {"skills": dict(manual), "saves": {}})


def choice(**keys: Any) -> TrainingChoice:
    return TrainingChoice.model_validate({"what": "skills", **keys})


class TestTiers:
    def test_the_grants_own_tier_first(self) -> None:
        assert FIVE_E.grant_tier("skills", "expertise") == "expertise"

    def test_then_the_builders(self) -> None:
        assert FIVE_E.grant_tier("skills", None) == "proficient"

    def test_then_the_first_above_untrained_the_sheet_offers(self) -> None:
        """004: without a tier, the first tier above untrained the sheet offers for skills."""
        assert Tiers(ORDER).grant_tier("skills", None) == "half"
        offered = Tiers(ORDER, skills=("none", "proficient", "expertise"))
        assert offered.grant_tier("skills", None) == "proficient"
        assert offered.grant_tier("saves", None) == "half"


class TestGrants:
    def test_direct_training_at_the_tier(self) -> None:
        state = training()
        state.grant("skills", ["insight", "religion"], None)
        assert state.granted["skills"] == {"insight": "proficient"}  # religion: not on the sheet

    def test_the_higher_tier_wins(self) -> None:
        """BUILDER §3.10: two grants on one skill keep the higher tier, whatever the order."""
        state = training()
        state.grant("skills", ["stealth"], "expertise")
        state.grant("skills", ["stealth"], None)
        assert state.granted["skills"]["stealth"] == "expertise"


class TestChoices:
    def test_the_half_elf_two_skills(self) -> None:
        """004's half-elf: trained choose [{what: skills, count: 2}], any skill."""
        state = training()
        result = state.choose(
            Slot("race/half-elf/trained.0", choice(count=2), None, ["arcana", "stealth"])
        )
        assert result.active == ("arcana", "stealth") and result.pending == 0
        assert state.granted["skills"] == {"arcana": "proficient", "stealth": "proficient"}

    def test_never_offers_what_picks_already_train(self) -> None:
        """004 (1.104): a background that trains Insight leaves the class choice the others."""
        state = training()
        state.grant("skills", ["insight"], None)
        slot = Slot(
            "class/choose.0",
            choice(count=2, **{"from": ["insight", "history", "arcana"]}),
            None,
            [],
        )
        result = state.choose(slot)
        assert result.offered == ("history", "arcana") and result.pending == 2

    def test_a_saved_answer_that_stopped_counting_asks_for_another(self) -> None:
        """004: "Una elección guardada antes de que se tomara así no cuenta para nada, de modo
        que el paso pide otra"."""
        state = training()
        state.grant("skills", ["insight"], None)
        slot = Slot("class/choose.0", choice(count=2), None, ["insight", "history"])
        result = state.choose(slot)
        assert result.active == ("history",)
        assert result.inactive == (("insight", "already trained at this tier"),)
        assert result.pending == 1

    def test_a_choice_with_nothing_to_offer_is_not_shown(self) -> None:
        state = training()
        state.grant("skills", ["arcana", "history"], None)
        result = state.choose(
            Slot("k", choice(count=1, **{"from": ["arcana", "history"]}), None, [])
        )
        assert (result.shown, result.pending) == (False, 0)

    def test_held_offers_what_is_trained_below_its_tier(self) -> None:
        """004 (1.105): Expertise: two skills you are proficient in."""
        state = training()
        state.grant("skills", ["stealth", "arcana", "insight"], None)
        expertise = choice(count=2, held="proficient")
        result = state.choose(
            Slot("class/expertise", expertise, "expertise", ["stealth", "history"])
        )
        assert result.offered == ("arcana", "insight", "stealth")
        assert result.active == ("stealth",)
        assert state.granted["skills"]["stealth"] == "expertise"

    def test_only_untrained(self) -> None:
        """004: a Human's out-of-career ranks use only: "untrained"."""
        state = training(athletics="proficient")
        result = state.choose(Slot("k", choice(count=1, only="untrained"), None, []))
        assert "athletics" not in result.offered and "arcana" in result.offered

    def test_exclude_choices(self) -> None:
        state = training()
        slot = Slot("k", choice(count=1), None, ["arcana"], excluded=frozenset({"arcana"}))
        result = state.choose(slot)
        assert result.inactive == (("arcana", "not offered by this choice"),)

    def test_the_hand_written_tier_is_read(self) -> None:
        """004: eligibility reads the manual training."""
        state = training(perception="proficient")
        result = state.choose(Slot("k", choice(count=1), None, ["perception"]))
        assert result.active == () and result.pending == 1


class TestReplacement:
    def test_a_duplicate_opens_a_replacement_slot(self) -> None:
        """004: a picked skill already trained opens a replacement among the untrained ones of
        the same kind, keeping the original answer; its key ends /replacement."""
        state = training()
        state.grant("skills", ["insight"], None)
        slot = Slot(
            "bg/choose.0",
            choice(count=2, onDuplicate="replace"),
            None,
            ["insight", "arcana"],
            ["stealth"],
        )
        result = state.choose(slot)
        assert result.active == ("arcana", "insight")
        assert result.replacement is not None
        assert result.replacement.key == "bg/choose.0/replacement"
        assert result.replacement.active == ("stealth",) and result.replacement.pending == 0
        assert state.granted["skills"] == {
            "insight": "proficient",
            "arcana": "proficient",
            "stealth": "proficient",
        }

    def test_replacement_from(self) -> None:
        """004: replacementFrom names the skills a duplicate may be replaced by."""
        state = training()
        state.grant("skills", ["insight"], None)
        picky = choice(count=1, onDuplicate="replace", replacementFrom=["history", "insight"])
        result = state.choose(Slot("k", picky, None, ["insight"], ["arcana"]))
        assert result.replacement is not None
        assert result.replacement.offered == ("history",)
        assert result.replacement.inactive == (("arcana", "not offered by this replacement"),)
        assert result.replacement.pending == 1

    def test_unpicking_removes_the_training(self) -> None:
        """Recomputed from the active picks only, a choice's training exists only with it."""
        with_pick = training()
        with_pick.choose(Slot("k", choice(count=1), None, ["arcana"]))
        assert "arcana" in with_pick.granted["skills"]
        assert "arcana" not in training().granted["skills"]
