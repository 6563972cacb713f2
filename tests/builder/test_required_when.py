"""A step's `requiredWhen` (004, 1.151) on the 5e builder of `conftest.py`: "requiredWhen: Ref
(contar las elecciones sin terminar en su insignia solo mientras sea mayor que cero)", read on
the finished card ("puede leer cualquier valor no vivo válido"), with 004's own example: "un
enumTable derivado existente para que un paso de subraza solo sea obligatorio para una
ascendencia"."""

from __future__ import annotations

from typing import Any

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from tests.builder.conftest import five_e_builder


def answers(**steps: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "seed": 7, "steps": steps}


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def steps_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in data["sheet"]["builder"]["steps"]}


def subrace_for_elves() -> Ruleset:
    """004's example: the race step writes an enum field `ancestry`; a derived enumTable
    reads 1 for an elf only, and the subrace step (min 1) is required while it does."""
    data = five_e_builder()
    sheet = data["sheet"]
    sheet["fields"].append(
        {
            "id": "ancestry",
            "label": "Ancestry",
            "type": "enum",
            "values": ["half-elf", "elf", "dwarf"],
        }
    )
    sheet["derived"].append(
        {
            "id": "needs_subrace",
            "label": "Needs a subrace",
            "op": "enumTable",
            "from": {"field": "ancestry"},
            "table": {"elf": 1},
        }
    )
    steps = steps_of(data)
    steps["race"]["field"] = "ancestry"
    steps["subrace"]["min"] = 1
    steps["subrace"]["requiredWhen"] = {"derived": "needs_subrace"}
    return load_ruleset(data)


def with_required_when(step_id: str, ref: dict[str, Any], **more: Any) -> Ruleset:
    data = five_e_builder()
    steps_of(data)[step_id].update(requiredWhen=ref, **more)
    return load_ruleset(data)


class TestTheBadge:
    def test_a_subrace_step_required_for_one_ancestry(self) -> None:
        """004: "un paso de subraza solo sea obligatorio para una ascendencia": an elf without
        a subrace waits for one; a dwarf (who is offered one) and a half-elf (who is offered
        none) do not, and neither does a character with no race yet (the table reads 0)."""
        rules = subrace_for_elves()
        elf = build_character(rules, answers(race={"picks": ["elf"]}))
        assert elf.card["fields"]["ancestry"] == "elf"
        assert elf.pending["subrace"] == 1 and step(elf, "subrace")["required"] is True
        dwarf = build_character(rules, answers(race={"picks": ["dwarf"]}))
        assert step(dwarf, "subrace")["offered"] == ["hill-dwarf"]
        assert dwarf.pending["subrace"] == 0 and step(dwarf, "subrace")["required"] is False
        half = build_character(rules, answers(race={"picks": ["half-elf"]}))
        assert half.pending["subrace"] == 0 and step(half, "subrace")["offered"] == []
        assert build_character(rules, answers()).pending["subrace"] == 0

    def test_a_required_step_answered_is_done(self) -> None:
        """An elf with a subrace: nothing waits; the pick counts as always."""
        rules = subrace_for_elves()
        result = build_character(
            rules, answers(race={"picks": ["elf"]}, subrace={"picks": ["high-elf"]})
        )
        assert result.pending["subrace"] == 0 and step(result, "subrace")["active"] == ["high-elf"]
        assert result.card["abilities"]["int"] == 9  # 8 + High Elf's 1

    def test_a_step_not_required_still_applies_its_picks(self) -> None:
        """004: "requiredWhen solo afecta a las insignias": a dwarf's subrace pick grants."""
        rules = subrace_for_elves()
        result = build_character(
            rules, answers(race={"picks": ["dwarf"]}, subrace={"picks": ["hill-dwarf"]})
        )
        assert step(result, "subrace")["active"] == ["hill-dwarf"]
        assert result.card["abilities"]["wis"] == 9  # 8 + Hill Dwarf's 1

    def test_it_reads_the_finished_card(self) -> None:
        """004: "puede leer cualquier valor no vivo válido": the race step, first, reads a
        field the later level step writes (unlike `when`, which reads only earlier steps)."""
        data = five_e_builder()
        steps = steps_of(data)
        steps["race"]["requiredWhen"] = {"field": "xp"}
        steps["level"]["fields"].append("xp")
        steps["level"]["optional"].append("xp")
        rules = load_ruleset(data)
        assert build_character(rules, answers()).pending["race"] == 0
        later = build_character(rules, answers(level={"fields": {"level": 1, "xp": 300}}))
        assert later.pending["race"] == 1 and step(later, "race")["required"] is True

    def test_the_choices_shown_on_the_step_stop_counting_too(self) -> None:
        """004: "contar las elecciones sin terminar en su insignia": a half-elf's two skills
        and a wizard's two, shown on a trained step not required, leave its badge at 0; each
        slot still says what it lacks."""
        rules = with_required_when("skills", {"const": 0})
        result = build_character(
            rules, answers(race={"picks": ["half-elf"]}, **{"class": {"picks": ["wizard"]}})
        )
        skills = step(result, "skills")
        assert [choice["pending"] for choice in skills["choices"]] == [2, 2]
        assert result.pending["skills"] == 0 and skills["required"] is False

    def test_a_step_without_it_is_required(self) -> None:
        """No requiredWhen: the badge counts what the step waits for, as before."""
        rules = with_required_when("subrace", {"const": 1}, min=1)
        result = build_character(rules, answers(race={"picks": ["elf"]}))
        assert result.pending["subrace"] == 1
        assert all(s["required"] for s in result.steps if s["shown"])
        assert result.pending["race"] == 0 and result.pending["class"] == 1

    def test_a_hidden_step_is_not_required(self) -> None:
        """A step hidden by its `when` requires nothing (badge 0, `required` false)."""
        rules = with_required_when("class", {"const": 1}, when={"const": 0})
        result = build_character(rules, answers())
        assert step(result, "class")["shown"] is False
        assert step(result, "class")["required"] is False and result.pending["class"] == 0


class TestWhatStillCounts:
    def test_an_overspent_point_buy_is_not_an_unfinished_choice(self) -> None:
        """004 tells "elecciones incompletas o no válidas" apart; requiredWhen gates the
        unfinished ones, so a point buy 1 point over budget keeps its badge and its reason."""
        rules = with_required_when("scores", {"const": 0})
        scores = {"str": 15, "dex": 15, "con": 15, "int": 9}
        result = build_character(rules, answers(scores={"method": "pointBuy", "scores": scores}))
        assert result.pending["scores"] == 1
        assert step(result, "scores")["reasons"] == ["1 point over budget (28 spent of 27)"]

    def test_values_left_to_hand_out_are_unfinished(self) -> None:
        """A standard array half handed out waits for the rest only while required."""
        scores = {"str": 15, "dex": 14}
        ans = answers(scores={"method": "standardArray", "scores": scores})
        required = load_ruleset(five_e_builder())
        assert build_character(required, ans).pending["scores"] == 4
        optional = with_required_when("scores", {"const": 0})
        assert build_character(optional, ans).pending["scores"] == 0

    def test_a_total_exceeded_still_counts(self) -> None:
        """004: `total` "suma uno a la insignia si el total supera el límite": a broken total
        is not an unfinished choice; the empty fields are."""
        data = five_e_builder()
        level = steps_of(data)["level"]
        level["fields"] = ["level", "xp", "alignment"]
        level["optional"] = []
        level["total"] = {"fields": ["level", "xp"], "max": 10}
        level["requiredWhen"] = {"const": 0}
        rules = load_ruleset(data)
        over = build_character(rules, answers(level={"fields": {"level": 3, "xp": 300}}))
        assert over.pending["level"] == 1  # alignment is empty, but only the total counts
        assert step(over, "level")["reasons"] == ["together at most 10 (now 303)"]
        within = build_character(rules, answers(level={"fields": {"level": 3}}))
        assert within.pending["level"] == 0
