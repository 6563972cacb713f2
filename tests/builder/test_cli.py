"""`gmtags character build` and `show` (SPEC §10), run in process, and `itemAccess` in the GM's
sheet block (004, "Objetos accesibles sin llevarlos")."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from gmtags import Snapshot, build_character, load_ruleset
from gmtags.cli import main
from gmtags.prompt.reminder import character_block
from tests.builder.conftest import five_e_builder
from tests.conftest import FIXTURES, REFERENCE_RULESETS, Ran, invoke
from tests.json_values import JSON

RULESET = FIXTURES / "rulesets" / "builder" / "5e-builder.json"
ANSWERS = FIXTURES / "answers" / "5e-half-elf-wizard.json"


def gmtags(*args: str | Path) -> Ran:
    return invoke(main, *args)


def build(*extra: str | Path) -> Ran:
    """`gmtags character build` of the bundled answers with the 5e builder sample."""
    return gmtags("character", "build", "--ruleset", RULESET, "--answers", ANSWERS, *extra)


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


class TestBuild:
    def test_the_bundled_answers_build_a_whole_character(self, tmp_path: Path) -> None:
        out = tmp_path / "card.json"
        ran = build("--out", out, "--check")
        assert (ran.returncode, ran.stderr) == (0, "")
        card = json.loads(out.read_text(encoding="utf-8"))
        assert card["fields"]["class"] == "Wizard" and card["abilities"]["int"] == 15
        assert card["builder"]["answers"]["seed"] == 2026

    def test_stdout_and_pending_steps_on_stderr(self, tmp_path: Path) -> None:
        """Exit 0 with pending steps (Next never blocks); each is listed on stderr."""
        answers = write(
            tmp_path / "a.json", {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf"]}}}
        )
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", answers)
        assert ran.returncode == 0 and json.loads(ran.stdout)["fields"]["race"] == "Elf"
        assert "class  1 pending: answers needed" in ran.stderr.splitlines()

    def test_trace_lists_each_change_by_the_step_that_made_it(self, tmp_path: Path) -> None:
        """`--trace`: every change, in order, after the step (or the work done once every step
        has run) that made it; the card still goes where it goes."""
        ran = build("--out", tmp_path / "card.json", "--trace")
        lines = ran.stderr.splitlines()
        assert ran.returncode == 0 and ran.stdout == ""
        assert lines[0] == "race: picks + races/half-elf"
        for line in (
            'race: fields.race = "Half-Elf"',
            "race: lists.features + Darkvision",
            "gear: items + equipment/spellbook ×1",
            "(scores): abilities.int = 15",
            '(training): skills.arcana = "proficient"',
            "start: fields.hp_max = 8",
        ):
            assert line in lines
        assert lines.index('race: fields.race = "Half-Elf"') < lines.index(
            "class: picks + classes/wizard"
        )

    def test_trace_says_what_a_change_replaced_and_what_the_card_shows(
        self, tmp_path: Path
    ) -> None:
        """On a card the player edited: the skill they marked by hand is trained over (was),
        and the speed they changed by hand stays on the card over the builder's (shown)."""
        card = json.loads(build().stdout)
        card["skills"]["arcana"] = "expert"
        del card["builder"]["writes"]["skills.arcana"]  # the player's own mark, not the builder's
        card["fields"]["speed"] = 35
        ran = build("--card", write(tmp_path / "c.json", card), "--trace")
        lines = ran.stderr.splitlines()
        assert '(training): skills.arcana = "proficient" (was "expert")' in lines
        assert "race: fields.speed = 30 (shown 35)" in lines
        assert json.loads(ran.stdout)["fields"]["speed"] == 35

    def test_check_exits_1_while_a_badge_is_above_0(self, tmp_path: Path) -> None:
        answers = write(tmp_path / "a.json", {"v": 1})
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", answers, "--check")
        assert ran.returncode == 1 and ran.stdout.startswith("{")

    def test_invalid_answers_exit_1_naming_every_place(self, tmp_path: Path) -> None:
        answers = write(tmp_path / "a.json", {"v": 2, "steps": {"race": {"pick": ["elf"]}}})
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", answers)
        assert ran.returncode == 1 and ran.stdout == ""
        assert ran.stderr.splitlines()[1:] == [
            "  v: Input should be 1",
            "  steps.race.pick: Extra inputs are not permitted",
        ]

    @pytest.mark.parametrize(
        ("answers", "called"),
        [
            ([], "an array"),
            ([{"v": 1}], "an array"),
            (3, "a number"),
            ("v", "a string"),
            (None, "null"),
            (True, "a boolean"),
        ],
    )
    def test_answers_that_are_no_object_exit_1_naming_the_file(
        self, tmp_path: Path, answers: Any, called: str
    ) -> None:
        """SPEC §8: answers of the wrong shape ("`null`, a number, a list where an object
        belongs") are refused with the library's own error: exit 1 (invalid answers), one
        message naming the file and the place, no traceback."""
        path = write(tmp_path / "a.json", answers)
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", path)
        assert (ran.returncode, ran.stdout) == (1, "")
        assert ran.stderr == (
            f"gmtags: answers {path} are invalid:\n"
            f"  (root): the answers are a JSON object, not {called}\n"
        )

    def test_a_wrong_type_deep_in_a_step_exits_1_at_its_path(self, tmp_path: Path) -> None:
        """A roll's face that is text, deep in a step's answer, is named at its path."""
        rolls = {"str": {"faces": [3, "4", 5]}}
        answers = {"v": 1, "steps": {"scores": {"method": "roll", "rolls": rolls}}}
        ran = gmtags(
            "character",
            "build",
            "--ruleset",
            RULESET,
            "--answers",
            write(tmp_path / "a.json", answers),
        )
        assert (ran.returncode, ran.stdout) == (1, "")
        assert ran.stderr.splitlines()[1:] == [
            "  steps.scores.rolls.str.faces.1: Input should be a valid integer"
        ]

    def test_an_answer_to_no_step_is_reported_and_the_rest_built(self, tmp_path: Path) -> None:
        """SPEC §10: answers naming nothing real are problems, never refused: the card of the
        real answers is written (exit 0) and the answer to no step is named on stderr."""
        answers = {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf"]}, "racce": {}}}
        ran = gmtags(
            "character",
            "build",
            "--ruleset",
            RULESET,
            "--answers",
            write(tmp_path / "a.json", answers),
        )
        assert ran.returncode == 0 and json.loads(ran.stdout)["fields"]["race"] == "Elf"
        assert "answers steps.racce: not a step of this builder" in ran.stderr.splitlines()

    @settings(max_examples=60, deadline=None)
    @given(answers=JSON)
    def test_any_json_document_builds_or_exits_1(self, answers: Any) -> None:
        """Any JSON value in the answers file builds (exit 0) or exits 1 naming the file,
        never a traceback (the in-process run fails the test on any exception)."""
        with tempfile.TemporaryDirectory() as folder:
            path = write(Path(folder) / "a.json", answers)
            ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", path)
        assert ran.returncode in (0, 1)
        if ran.returncode == 1:
            assert ran.stdout == "" and ran.stderr.startswith(f"gmtags: answers {path} ")

    def test_hostile_answers_file(self, tmp_path: Path) -> None:
        answers = tmp_path / "a.json"
        answers.write_text("[" * 3000, encoding="utf-8")
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", answers)
        assert ran.returncode == 1 and "nested deeper than 100" in ran.stderr

    def test_a_ruleset_without_a_builder(self, tmp_path: Path) -> None:
        answers = write(tmp_path / "a.json", {"v": 1})
        plain = REFERENCE_RULESETS / "ruleset-5e-2014.example.json"
        ran = gmtags("character", "build", "--ruleset", plain, "--answers", answers)
        assert ran.returncode == 1 and "sheet.builder: this ruleset has no builder" in ran.stderr

    def test_an_invalid_card(self, tmp_path: Path) -> None:
        answers = write(tmp_path / "a.json", {"v": 1})
        card = write(tmp_path / "c.json", {"abilities": {"str": "high"}})
        ran = gmtags(
            "character", "build", "--ruleset", RULESET, "--answers", answers, "--card", card
        )
        assert ran.returncode == 1 and "abilities.str" in ran.stderr

    def test_missing_files_and_usage(self, tmp_path: Path) -> None:
        ran = gmtags("character", "build", "--ruleset", RULESET, "--answers", tmp_path / "no.json")
        assert ran.returncode == 1 and "answers file not found" in ran.stderr
        assert gmtags("character", "build", "--ruleset", RULESET).returncode == 2
        party = gmtags("character", "build", "--ruleset", RULESET, "--answers", ANSWERS, "--party")
        assert party.returncode == 1 and "no party sheet" in party.stderr
        alone = build("--state-out", "x.json")
        assert alone.returncode == 2 and "need --state" in alone.stderr
        revision = build("--revision", "1")
        assert revision.returncode == 2 and "--party" in revision.stderr

    def test_building_on_a_card_keeps_its_hand_written_values(self, tmp_path: Path) -> None:
        card = write(tmp_path / "c.json", {"fields": {"alignment": "Chaotic Good", "speed": 40}})
        answers = write(
            tmp_path / "a.json", {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf"]}}}
        )
        ran = gmtags(
            "character", "build", "--ruleset", RULESET, "--answers", answers, "--card", card
        )
        assert json.loads(ran.stdout)["fields"]["speed"] == 40


class TestShow:
    def test_the_character_and_its_badges(self, tmp_path: Path) -> None:
        out = tmp_path / "card.json"
        gmtags("character", "build", "--ruleset", RULESET, "--answers", ANSWERS, "--out", out)
        ran = gmtags("character", "show", "--ruleset", RULESET, "--card", out, "--name", "Ilse")
        lines = ran.stdout.splitlines()
        assert ran.returncode == 0 and lines[0] == "Ilse:"
        assert any(line.startswith("  Trained: Arcana +4") for line in lines)
        assert lines[-1] == "Builder: every step done"

    def test_pending_badges(self, tmp_path: Path) -> None:
        answers = write(
            tmp_path / "a.json", {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf"]}}}
        )
        out = tmp_path / "card.json"
        gmtags("character", "build", "--ruleset", RULESET, "--answers", answers, "--out", out)
        ran = gmtags("character", "show", "--ruleset", RULESET, "--card", out)
        assert "  class  1 pending: answers needed" in ran.stdout.splitlines()

    def test_one_step_pending_and_its_reason(self, tmp_path: Path) -> None:
        """Every step done but a point buy 2 points over budget: "1 step pending" (not "1 steps"),
        with the reason the step gives (004: "puntos restantes negativos cuando se ha gastado de
        más"), not "answers needed"."""
        whole = json.loads(Path(ANSWERS).read_text(encoding="utf-8"))
        whole["steps"]["scores"]["scores"] = {"str": 15, "dex": 15, "con": 15, "int": 10}
        answers = write(tmp_path / "a.json", whole)
        out = tmp_path / "card.json"
        gmtags("character", "build", "--ruleset", RULESET, "--answers", answers, "--out", out)
        ran = gmtags("character", "show", "--ruleset", RULESET, "--card", out)
        lines = ran.stdout.splitlines()
        assert lines[-2:] == [
            "Builder: 1 step pending",
            "  scores  1 pending: 2 points over budget (29 spent of 27)",
        ]

    def test_a_card_without_builder_answers(self, tmp_path: Path) -> None:
        card = write(tmp_path / "c.json", {"abilities": {"str": 12}})
        ran = gmtags("character", "show", "--ruleset", RULESET, "--card", card)
        assert (
            ran.returncode == 0
            and ran.stdout.splitlines()[-1] == "(no builder answers on this card)"
        )


class TestItemAccess:
    def test_available_items_are_listed_as_not_carried(self) -> None:
        """004 (1.215): picking the entry makes items available, shown as not carried in the
        GM's sheet block; nothing enters the bag; one the GM adds is carried."""
        data = five_e_builder()
        data["items"] = {"categories": [{"id": "gear", "label": "Gear"}]}
        data["catalogs"].append(
            {
                "id": "kit",
                "label": "Kit",
                "holds": "items",
                "entries": [
                    {"id": "rope", "label": "Silk rope", "item": {"category": "gear"}},
                    {"id": "lamp", "label": "Hooded lamp", "item": {"category": "gear"}},
                ],
            }
        )
        data["catalogs"][4]["entries"][0]["grants"]["itemAccess"] = ["kit/rope", "kit/lamp"]
        ruleset = load_ruleset(data)
        card = build_character(
            ruleset, {"v": 1, "seed": 1, "steps": {"class": {"picks": ["wizard"]}}}
        ).card
        assert card["builder"]["available"] == ["kit/rope", "kit/lamp"] and "items" not in card
        block = character_block(
            ruleset, Snapshot.model_validate({"gameCharacterCards": {"Ilse": card}}), "Ilse"
        )
        assert "  Available, not carried: Silk rope, Hooded lamp" in block
        card["items"] = [{"ref": "kit/rope"}]
        block = character_block(
            ruleset, Snapshot.model_validate({"gameCharacterCards": {"Ilse": card}}), "Ilse"
        )
        assert "  Available, not carried: Hooded lamp" in block


class TestRulesetsOption:
    def test_character_commands_take_rulesets(self, tmp_path: Path) -> None:
        """`--rulesets DIR` (borrowed catalogs' lenders) on `character build`; a folder that does
        not exist is a usage error."""
        library = FIXTURES / "rulesets" / "library" / "lenders"
        out = tmp_path / "card.json"
        ran = build("--rulesets", library, "--out", out)
        assert ran.returncode == 0 and out.exists()
        missing = gmtags(
            "character",
            "show",
            "--ruleset",
            RULESET,
            "--card",
            out,
            "--rulesets",
            tmp_path / "nowhere",
        )
        assert missing.returncode == 2


class TestState:
    def test_the_card_is_built_on_the_states_and_saved_into_it(self, tmp_path: Path) -> None:
        """`--state S --name N --state-out S2`: the card of N (matched by normalised name) is
        built on, and saved under its stored name; the other characters stay."""
        built = json.loads(build().stdout)
        built["fields"]["notes"] = "By hand"
        state = {
            "gameCharacterCards": {"Bram": {}, "Ilse": built},
            "rulesetClocks": [{"name": "Dawn", "size": 4, "filled": 1}],
        }
        path, out = write(tmp_path / "state.json", state), tmp_path / "out.json"
        ran = build("--state", path, "--name", "ilse", "--state-out", out)
        assert ran.returncode == 0, ran.stderr
        saved = Snapshot.model_validate_json(out.read_text(encoding="utf-8"))
        assert list(saved.game_character_cards) == ["Bram", "Ilse"]
        card = saved.game_character_cards["Ilse"]
        assert card.fields["notes"] == "By hand" and card.abilities["int"] > 10
        assert saved.ruleset_clocks == Snapshot.model_validate(state).ruleset_clocks

    def test_a_new_name_is_added(self, tmp_path: Path) -> None:
        path, out = write(tmp_path / "state.json", {}), tmp_path / "out.json"
        assert build("--state", path, "--name", "Ilse", "--state-out", out).returncode == 0
        saved = Snapshot.model_validate_json(out.read_text(encoding="utf-8"))
        assert list(saved.game_character_cards) == ["Ilse"]

    def test_a_name_that_cannot_be_a_character(self, tmp_path: Path) -> None:
        path, out = write(tmp_path / "state.json", {}), tmp_path / "out.json"
        ran = build("--state", path, "--name", "  ", "--state-out", out)
        assert ran.returncode == 1 and "not a character name" in ran.stderr
        assert not out.exists()
