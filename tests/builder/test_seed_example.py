"""004's own example builder (its first JSON: race, subrace, class, level, scores, skills, gear)
imports unchanged and builds a whole character; its gear step, which names no kits, shows its
empty state in every face and never holds the character back (004: "Sin equipo que encaje, el
paso muestra su estado vacío y Next sigue disponible")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gmtags import build_character, load_ruleset
from gmtags.builder.build import BuildResult
from gmtags.builder.wizard import Wizard
from gmtags.ruleset.builder import StartingGearStep
from gmtags.server.pages.builder_page import page_data
from tests.builder.conftest import SEED_EXAMPLE, seed_example
from tests.builder.test_cli import gmtags, write

RULESET = load_ruleset(seed_example())

WHOLE: dict[str, Any] = {
    "v": 1,
    "seed": 1,
    "steps": {
        "race": {"picks": ["elf"]},
        "subrace": {"picks": ["high-elf"]},
        "class": {"picks": ["wizard"]},
        "level": {"fields": {"level": 1, "background": "Sage"}},
        "scores": {
            "method": "standardArray",
            "scores": {"str": 8, "dex": 14, "con": 13, "int": 15, "wis": 12, "cha": 10},
        },
    },
    "choices": {"class/wizard/trained.0": ["arcana", "history"]},
}
"""Every step of the example answered but the gear step, which has nothing to answer."""


def gear(result: BuildResult) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == "gear")


class TestImport:
    def test_004s_own_example_builder_imports(self) -> None:
        """The example builder loads key for key as 004 prints it, and its `startingGear` step
        (`{"id": "gear", "label": "Equipment", "kind": "startingGear"}`) has no kits."""
        assert RULESET.sheet.builder == SEED_EXAMPLE
        model = RULESET.sheet.builder_model
        assert model is not None
        assert [s.id for s in model.steps] == [
            "race",
            "subrace",
            "class",
            "level",
            "scores",
            "skills",
            "gear",
        ]
        last = model.steps[-1]
        assert isinstance(last, StartingGearStep) and last.kits == [] and last.label == "Equipment"


class TestEmptyGearStep:
    def test_the_gear_step_is_shown_empty_and_asks_nothing(self) -> None:
        """From a blank build on, the gear step is shown, offers nothing and its badge is 0,
        while the steps that do ask something wait."""
        blank = build_character(RULESET, {"v": 1, "seed": 1})
        step = gear(blank)
        assert (step["shown"], step["offered"], step["active"], step["pending"]) == (
            True,
            [],
            [],
            0,
        )
        assert blank.pending["gear"] == 0 and blank.pending["race"] == 1

    def test_a_whole_character_completes_past_it(self, tmp_path: Path) -> None:
        """Every other step answered, every badge is 0: the empty gear step holds nothing
        back, and `character build --check` (exit 1 while any badge is above 0) exits 0."""
        result = build_character(RULESET, WHOLE)
        assert result.pending == dict.fromkeys(result.pending, 0)
        assert result.problems == []
        assert result.card["fields"]["race"] == "Elf" and "items" not in result.card
        ruleset = write(tmp_path / "r.json", seed_example())
        answers = write(tmp_path / "a.json", WHOLE)
        ran = gmtags("character", "build", "--ruleset", ruleset, "--answers", answers, "--check")
        assert (ran.returncode, ran.stderr) == (0, "")

    def test_a_kit_answered_there_is_kept_not_counted(self) -> None:
        """A kit id saved on the step names no kit of it: kept in the answers, inactive with
        its reason, nothing written to the card."""
        answers = {**WHOLE, "steps": {**WHOLE["steps"], "gear": {"kits": ["explorer"]}}}
        result = build_character(RULESET, answers)
        assert gear(result)["inactive"] == [
            {"answer": "explorer", "reason": "not a kit of this step"}
        ]
        assert gear(result)["active"] == [] and "items" not in result.card
        assert result.answers["steps"]["gear"] == {"kits": ["explorer"]}

    def test_the_wizard_shows_the_empty_state_and_goes_on(self, tmp_path: Path) -> None:
        """The terminal wizard: the gear step's badge is done, its body says there is
        nothing to choose, no number picks anything, and the whole card is written."""
        w = Wizard(RULESET, answers=WHOLE, out=tmp_path / "card.json")
        screen = w.feed("g gear")
        assert "gear✓" in screen.splitlines()[0].split()[-1]
        assert "  (No starting gear fits this character; Next still works.)" in screen
        assert w.feed("1") == "no entry 1 here (none here); nothing changed"
        assert w.feed("b").splitlines()[0].endswith("[skills✓] gear✓")
        assert w.feed("n").splitlines()[0].endswith("skills✓ [gear✓]")
        assert w.feed("w") == f"wrote {tmp_path / 'card.json'}; every step done"

    def test_the_page_data_gives_the_step_no_kits(self) -> None:
        """The builder page's data carries the gear step with an empty `kits` list, which its
        script shows as the step's empty state ("No starting gear fits this character; Next
        still works.") instead of failing on a missing list."""
        data = page_data(RULESET, None, None, None, False)
        assert data["builder"]["steps"][-1] == {
            "id": "gear",
            "label": "Equipment",
            "kind": "startingGear",
            "kits": [],
        }
