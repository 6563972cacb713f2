"""`gmtags character new`, the builder's terminal wizard (SPEC §10, BUILDER §2.6): its core
fed line by line, and one whole half-elf wizard built in a real pseudo-terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gmtags import Snapshot, build_character, load_ruleset, process
from gmtags.builder.wizard import Wizard
from gmtags.cli import main
from tests.conftest import FIXTURES, REFERENCE_RULESETS, invoke

RULESET_PATH = FIXTURES / "rulesets" / "builder" / "5e-builder.json"
ANSWERS = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text(encoding="utf-8"))
FIVE_E = load_ruleset(RULESET_PATH)

HALF_ELF_WIZARD = [
    *["5", "g class", "4", "n", "3", "n", "1 1", "2 Neutral Good", "n"],
    *["str 8", "dex 14", "con 13", "int 15", "wis 12", "cha 10", "12", "13", "n"],
    *["10", "15", "18", "17", "n", "2", "21", "23", "n", "1", "3", "2", "n", "n", "4"],
    *["g start", "1"],
]
"""The lines that build the fixture's half-elf wizard (seed 2026), as a player types them."""


def wizard(tmp_path: Path | None = None, **kwargs: Any) -> Wizard:
    out = tmp_path / "card.json" if tmp_path is not None else None
    return Wizard(FIVE_E, seed=2026, out=out, **kwargs)


def feed(w: Wizard, *lines: str) -> str:
    return "\n".join(w.feed(line) for line in lines)


def number(w: Wizard, value: str, slot: str = "") -> str:
    return next(
        str(n) for n, item in enumerate(w.items(), 1) if (item.value, item.slot) == (value, slot)
    )


class TestScreen:
    def test_steps_with_badges_on_top_the_body_and_the_character(self) -> None:
        """BUILDER §2.6: the steps and badges on top, the numbered entries, the character so far."""
        screen = wizard().start().splitlines()
        assert screen[0].startswith("[race(1)] subrace✓ class(1) background(1) level(1)")
        assert "scores(27 left)" in screen[0] and "gear(1)" in screen[0]
        assert (
            "   5. [ ] Half-Elf - Walking in two worlds but truly belonging to neither." in screen
        )
        assert "Character:" in screen
        assert any(line.startswith("  Abilities: Strength 8 (-1)") for line in screen)
        assert "  Pool scores: 0 of 27 spent, 27 left" in screen

    def test_the_prompt_names_the_step(self) -> None:
        """The prompt says which step a number would answer."""
        w = wizard()
        assert w.prompt == "race> "
        w.feed("n")
        assert w.prompt == "subrace> "

    def test_help(self) -> None:
        """`?` lists every key."""
        text = wizard().feed("?")
        assert "u / r          undo / redo an answer" in text and "q              quit" in text

    def test_an_unknown_key_is_said(self) -> None:
        """A key the wizard does not know is said, and nothing changes."""
        assert wizard().feed("zap") == "unknown key 'zap'; ? lists the keys"


class TestNavigation:
    def test_next_and_back_never_block(self) -> None:
        """004: Next and Back never block; a badge is a reminder."""
        w = wizard()
        assert w.entry("race")["pending"] == 1
        assert w.feed("n").splitlines()[0].startswith("race(1) [subrace✓]")
        w.feed("n")
        assert w.step_id == "class"
        w.feed("b")
        assert w.step_id == "subrace"

    def test_back_at_the_first_step_and_next_at_the_last(self) -> None:
        """Back at the first step and Next at the last say so and stay."""
        w = wizard()
        assert w.feed("b").startswith("(the first step)")
        w.feed("g start")
        assert w.feed("n").startswith("(the last step)") and w.step_id == "start"

    def test_go_by_id_label_or_place(self) -> None:
        """`g` takes a step's id, its label or its place in the top line."""
        w = wizard()
        w.feed("g scores")
        assert w.step_id == "scores"
        w.feed("g Equipment")
        assert w.step_id == "gear"
        w.feed("g 2")
        assert w.step_id == "subrace"
        assert wizard().feed("g nowhere").startswith("no step 'nowhere' (the steps: race, ")


class TestCatalog:
    def test_pick_and_unpick_by_number(self) -> None:
        """A number picks an entry, the same number unpicks it."""
        w = wizard()
        text = w.feed("5")
        assert text.startswith("picked Half-Elf\n[race✓]") and "   5. [x] Half-Elf" in text
        assert w.answers["steps"]["race"] == {"picks": ["half-elf"]}
        assert w.feed("5").startswith("unpicked Half-Elf")
        assert "race" not in w.answers["steps"]

    def test_a_step_of_one_entry_replaces_the_pick(self) -> None:
        """A step that takes one entry replaces the pick (the latest wins)."""
        w = wizard()
        feed(w, "5", "2")
        assert w.answers["steps"]["race"] == {"picks": ["elf"]}
        assert w.result.card["fields"]["race"] == "Elf"

    def test_a_step_of_several_adds(self) -> None:
        """A step that takes several adds them in the order picked."""
        w = wizard()
        feed(w, "g class", "4", "g cantrips")
        feed(w, number(w, "light"), number(w, "fire-bolt"))
        assert w.answers["steps"]["cantrips"] == {"picks": ["light", "fire-bolt"]}
        assert "[x] Light" in w.screen()

    def test_a_bad_entry_number_is_said_and_ignored(self) -> None:
        """A number not on the list is said; the answers and history stay."""
        w = wizard()
        before = (list(w.history), w.place)
        assert w.feed("9") == "no entry 9 here (1-5); nothing changed"
        assert w.feed("0") == "no entry 0 here (1-5); nothing changed"
        assert (w.history, w.place) == before

    def test_nothing_offered(self) -> None:
        """A step with nothing to offer says so."""
        w = wizard()
        text = w.feed("g subrace")
        assert (
            "  (Nothing to choose here yet: an earlier step decides what this one offers.)" in text
        )
        assert w.feed("1") == "no entry 1 here (none here); nothing changed"

    def test_info_shows_an_entry_summary(self) -> None:
        """`i N` shows entry N's summary and changes nothing."""
        w = wizard()
        assert w.feed("i 2") == "Elf: A magical people of otherworldly grace."
        assert w.feed("i 42") == "no entry 42 here; i N shows entry N"
        assert w.history == [w.answers]  # looking changes nothing


class TestFields:
    def test_a_number_prompts_each_field_from_there(self) -> None:
        """A field's number prompts for it and each field after it."""
        w = wizard()
        w.feed("g level")
        assert w.feed("1") == "enter a value; empty keeps it, - clears it"
        assert w.prompt == "Level [-]: "
        assert w.feed("3") == "Level = 3"
        assert w.prompt == "Alignment (optional) [-]: "
        text = w.feed("Lawful Good")
        assert "   2. Alignment (optional): Lawful Good" in text and w.prompt == "level> "
        assert w.answers["steps"]["level"] == {"fields": {"level": 3, "alignment": "Lawful Good"}}

    def test_empty_keeps_and_dash_clears(self) -> None:
        """An empty answer keeps the field; `-` clears it."""
        w = wizard()
        feed(w, "g level", "1 2", "2 Neutral")
        feed(w, "1", "", "-")
        assert w.answers["steps"]["level"] == {"fields": {"level": 2}}

    def test_a_number_field_refuses_text(self) -> None:
        """A number field refuses text, and the prompt asks again."""
        w = wizard()
        w.feed("g level")
        assert w.feed("1 many") == "Level: 'many' is not a number; nothing changed"
        assert "level" not in w.answers["steps"]
        w.feed("1")
        assert w.feed("many") == "Level: 'many' is not a number; nothing changed"
        assert w.prompt == "Level [-]: "  # asked again
        assert w.feed("2") == "Level = 2" and w.prompt == "Alignment (optional) [-]: "


class TestAbilities:
    def test_scores_with_base_bonus_total_and_the_point_buy_pool(self) -> None:
        """The score table: base, the picks' bonus, total and modifier, with the pool."""
        w = wizard()
        w.feed("5")
        text = w.feed("g scores")
        assert "  Scores (Ability, Base, Bonus, Total, Mod, Set):" in text
        assert "  10. Charisma       base 8  bonus +2  total 10  mod +0  [8]" in text
        text = w.feed("int 15")
        assert "   8. Intelligence   base 15  bonus +0  total 15  mod +2  [15]" in text
        assert "  Points left: 18 of 27" in text
        assert "scores(2, 18 left)" in text.splitlines()[1]

    def test_a_point_buy_score_steps_within_the_table(self) -> None:
        """`N +` and `N -` step a point-buy score by one, never past the table."""
        w = wizard()
        w.feed("g scores")
        assert w.feed("8 +").startswith("Intelligence = 9")
        assert w.feed("8 -").startswith("Intelligence = 8")
        assert w.feed("8 -") == "Intelligence: no further that way; nothing changed"

    def test_over_budget_the_badge_and_its_reason(self) -> None:
        """004: an overspent budget shows "puntos restantes negativos"; the top line says how far
        over (not "-2 left") and the step says why, in points."""
        w = wizard()
        feed(w, "g scores", "str 15", "dex 15", "con 15")
        text = w.feed("int 10")
        assert "[scores(1, 2 over)]" in text.splitlines()[1]
        assert "  2 points over budget (29 spent of 27)" in text.splitlines()
        assert "  Points left: -2 of 27" in text.splitlines()

    def test_a_method_by_number_and_the_race_choice(self) -> None:
        """A method by its number; a race's ability choice shows as a bonus."""
        w = wizard()
        feed(w, "5", "g scores", "2", "int 15", "cha 13")
        answer = w.answers["steps"]["scores"]
        assert answer == {"method": "standardArray", "scores": {"int": 15, "cha": 13}}
        text = w.feed(number(w, "dex", "race/half-elf/abilities.0"))
        assert "  10. Charisma       base 13  bonus +2  total 15  mod +2  [13]" in text
        assert "   6. Dexterity      base —  bonus —  total 11  mod +0  [-]" in text
        assert w.answers["choices"] == {"race/half-elf/abilities.0": ["dex"]}

    def test_a_rolled_set_is_shown_and_handed_out(self) -> None:
        """3.13: the roll method's set is shown with its faces; each value is handed out."""
        w = wizard()
        w.feed("g scores")
        text = w.feed("3")
        assert "  Rolled: 14 (5 3 6 3), 12 (6 4 2 2), 11 (5 2 1 4), 10 (3" in text
        assert "[scores(6)]" in text
        text = w.feed("int 14")
        assert "   8. Intelligence   base 14  bonus +0  total 14  mod +2  [14]" in text
        assert "[scores(5)]" in text
        assert "Left to assign: 12, 11, 10, 8, 10" in text
        assert w.feed("u").startswith("undone") and "Rolled: 14 (5 3 6 3)" in w.screen()

    def test_a_score_that_is_not_a_number(self) -> None:
        """A score that is not a whole number is said; off an abilities step, an unknown key."""
        w = wizard()
        w.feed("g scores")
        assert w.feed("int high") == ("Intelligence: 'high' is not a whole number; nothing changed")
        assert wizard().feed("int 15") == "unknown key 'int'; ? lists the keys"


class TestRequiredWhen:
    def test_a_step_not_required_says_so(self, tmp_path: Path) -> None:
        """004 `requiredWhen` (here on the fixture's class step: `{"const": 0}`): "contar las
        elecciones sin terminar en su insignia solo mientras sea mayor que cero"; the step
        says it is not required, and a required one does not."""
        data = json.loads(RULESET_PATH.read_text(encoding="utf-8"))
        step = next(s for s in data["sheet"]["builder"]["steps"] if s["id"] == "class")
        step["requiredWhen"] = {"const": 0}
        changed = tmp_path / "ruleset.json"
        changed.write_text(json.dumps(data), encoding="utf-8")
        w = Wizard(load_ruleset(changed), seed=2026)
        text = w.feed("g class")
        assert "  (not required for this character: what it still asks is not counted)" in text
        assert "not required" not in w.feed("g race")


class TestChoices:
    def test_choice_slots_with_their_options(self) -> None:
        """A trained step lists each choice slot with its options."""
        w = wizard()
        text = feed(w, "5", "g skills")
        assert "  Race · Half-Elf: choose 2 (2 to go)" in text
        w.feed(number(w, "arcana", "race/half-elf/trained.0"))
        assert w.answers["choices"] == {"race/half-elf/trained.0": ["arcana"]}
        assert "  Trained: Arcana +1" in w.screen()  # int 8 → -1, proficient → +2

    def test_a_slot_of_one_replaces(self) -> None:
        """A choice slot of one replaces its answer."""
        w = wizard()
        feed(w, "5", "g languages")
        slot = "race/half_elf_language"
        feed(w, number(w, "elvish", slot), number(w, "orc", slot))
        assert w.answers["choices"] == {slot: ["orc"]}


class TestOtherKinds:
    def test_starting_gear_lists_kits(self) -> None:
        """startingGear lists the kits with their lines."""
        w = wizard()
        text = w.feed("g gear")
        assert "   4. [ ] Wizard's equipment - A quarterstaff, a component pouch" in text
        assert w.feed("4").startswith("picked Wizard's equipment")
        assert w.answers["steps"]["gear"] == {"kits": ["wizard-kit"]}

    def test_strict_gear_lists_only_the_kits_that_fit(self) -> None:
        """004 (1.109): strict "solo ofrece el equipo cuyo fits sea verdadero … no hay lista de
        otro equipo", and "Sin equipo que encaje, el paso muestra su estado vacío y Next sigue
        disponible": with no kit fitting the step shows its empty state; a kit taken before
        stays listed with why it no longer counts."""
        data = json.loads(RULESET_PATH.read_text(encoding="utf-8"))
        gear = next(s for s in data["sheet"]["builder"]["steps"] if s["id"] == "gear")
        gear["strict"] = True
        for kit in gear["kits"]:
            fits = 2 if kit["id"] == "wizard-kit" else 5
            kit["fits"] = {"value": {"field": "level"}, "atLeast": fits}
        ruleset = load_ruleset(data)
        blank = Wizard(ruleset, seed=2026).feed("g gear")
        assert "  (No starting gear fits this character; Next still works.)" in blank
        assert "[gear✓]" in blank.splitlines()[0]
        taken = {"v": 1, "seed": 2026, "steps": {"gear": {"kits": ["fighter-kit"]}}}
        w = Wizard(ruleset, answers=taken)
        text = w.feed("g gear")
        assert [i.value for i in w.items()] == ["fighter-kit"]  # at level 1 none fits
        line = "   1. [!] Fighter's equipment  (kept, not counted: does not fit the sheet) - "
        assert any(shown.startswith(line) for shown in text.splitlines())
        w.feed("g level")
        w.feed("1 2")
        w.feed("g gear")
        assert [i.value for i in w.items()] == ["fighter-kit", "wizard-kit"]

    def test_initialize_set(self) -> None:
        """An initialize step shows what Set writes; its numbered [Set] writes it, then
        offers [Set again] (the step's view, `gmtags.builder.kinds.initialize.view`)."""
        w = wizard()
        text = w.feed("g start")
        assert "  Hit point maximum: now —, Set writes 7" in text and "   1. [Set]" in text
        assert w.feed("1").startswith("Set\n")
        assert w.answers["steps"]["start"] == {"set": 1} and w.entry()["pending"] == 0
        assert w.result.card["fields"]["hp_max"] == 7
        assert "   1. [Set again]" in w.screen()
        w.feed("1")
        assert w.answers["steps"]["start"] == {"set": 2}

    def test_a_roll_is_kept_without_retry(self) -> None:
        """A roll is shown with its faces and kept: a step without retry offers no button
        (the wealth roll, shown once the player rolls starting wealth instead of a kit)."""
        w = wizard()
        feed(w, "g outfit", "1 wealth")
        text = w.feed("g wealth")
        assert "  Starting gold (gp): 140 (rolled 2 4 1 3 4)" in text
        assert "[Roll" not in text
        assert w.feed("1") == "no entry 1 here (none here); nothing changed"

    def test_a_retry_rolls_again(self) -> None:
        """A step with `retry` offers [Roll … again] under each roll: pressing it raises the
        roll's attempt, a new roll from the seed (the CoC sample's potential)."""
        coc = load_ruleset(FIXTURES / "rulesets" / "builder" / "coc-builder.json")
        w = Wizard(coc, seed=11)
        text = w.feed("g potential")
        assert "   1. [Roll Potential again]" in text
        w.feed("1")
        assert w.answers["steps"]["potential"]["rolls"]["potential"]["attempt"] == 1
        assert "   1. [Roll Potential again]" in w.screen()
        w.feed("1")
        assert w.answers["steps"]["potential"]["rolls"]["potential"]["attempt"] == 2

    def test_rows_by_their_numbered_controls(self) -> None:
        """A rows step: [Add a row] adds one, each cell takes `N <value>`, [Remove row N]
        takes its row out."""
        w = wizard()
        text = w.feed("g hit_points")
        assert "  No rows yet.\n   1. [Add a row]" in text
        text = w.feed("1")  # a new row starts from the step's defaults
        assert "   1. Level, row 1: 2\n   2. Roll, row 1: 1\n   3. [Remove row 1]" in text
        w.feed("2 5")
        assert w.answers["steps"]["hit_points"]["rows"] == [{"level": 2, "roll": 5}]
        feed(w, "4", "5 3")
        rows = w.answers["steps"]["hit_points"]["rows"]
        assert rows == [{"level": 2, "roll": 5}, {"level": 2, "roll": 3}]
        w.feed("3")
        assert w.answers["steps"]["hit_points"]["rows"] == [{"level": 2, "roll": 3}]

    def test_any_answer_key_as_json(self) -> None:
        """`= key json` edits a step's answer key; `= key` drops it."""
        w = wizard()
        w.feed("g hit_points")
        w.feed('= rows [{"roll": 5}]')
        assert w.answers["steps"]["hit_points"]["rows"] == [{"roll": 5}]
        w.feed("= rows")
        assert "rows" not in w.answers["steps"].get("hit_points", {})

    def test_an_allocate_step_by_its_numbered_controls(self) -> None:
        """VtM's allocate step: each group's priority picked by its number, dots counted
        with `N +`, `N -` and `N <count>`."""
        vtm = load_ruleset(FIXTURES / "rulesets" / "builder" / "vtm-builder.json")
        w = Wizard(vtm, seed=1)
        text = w.feed("g attributes")
        assert "   1. Priority: -" in text and "   2. Strength: ●○○○○ 1  [0]" in text
        feed(w, "1 0", "5 1", "9 2")
        assert w.answers["steps"]["attributes"]["priorities"] == {
            "physical": 0, "social": 1, "mental": 2,
        }  # fmt: skip
        assert w.feed("2 +").startswith("Strength 1")
        text = w.feed("2 +")
        assert "  Pool attributes/physical: 2 of 7 spent, 5 left" in text
        assert "   2. Strength: ●●●○○ 3  [2]" in text
        assert w.result.card["abilities"]["strength"] == 3
        w.feed("2 -")
        assert w.answers["steps"]["attributes"]["dots"] == {"ability/strength": 1}
        w.feed("2 0")
        assert "dots" not in w.answers["steps"]["attributes"]
        assert w.feed("2 -") == "Strength: no further that way; nothing changed"

    def test_scores_without_modifiers(self) -> None:
        """CoC's characteristics are their own numbers: no modifier column."""
        coc = load_ruleset(FIXTURES / "rulesets" / "builder" / "coc-builder.json")
        text = Wizard(coc, seed=7).start()
        assert "  Scores (Ability, Base, Bonus, Total, Set):" in text

    def test_a_key_that_does_not_fit_is_said_and_ignored(self) -> None:
        """Bad JSON or a key the answers refuse is said; nothing changes."""
        w = wizard()
        places = len(w.history)
        assert w.feed("= picks {").startswith("= picks: not JSON")
        text = w.feed('= pics ["elf"]')
        assert text.startswith("not taken (the answers would not fit: steps.race.pics: ")
        assert w.feed('= picks "elf"').startswith("not taken")
        assert len(w.history) == places


class TestUndoRedo:
    def test_undo_and_redo_over_the_answers(self) -> None:
        """Undo and redo step through the answers; the card is rebuilt each time."""
        w = wizard()
        assert w.feed("u") == "nothing to undo"
        feed(w, "5", "g class", "4")
        assert w.feed("u").startswith("undone")
        assert "class" not in w.answers["steps"] and w.step_id == "class"
        w.feed("u")
        assert "race" not in w.answers["steps"] and "race" not in w.result.card.get("fields", {})
        feed(w, "r", "r")
        assert w.result.card["fields"]["class"] == "Wizard"
        assert w.feed("r") == "nothing to redo"

    def test_a_new_answer_drops_what_could_be_redone(self) -> None:
        """An answer after an undo drops the redo."""
        w = wizard()
        feed(w, "5", "u", "2")
        assert w.feed("r") == "nothing to redo"
        assert w.answers["steps"]["race"] == {"picks": ["elf"]}


class TestWriteAndQuit:
    def test_write_with_pending_badges_warns(self, tmp_path: Path) -> None:
        """`w` writes the card even with badges pending, listing them, and goes on."""
        w = wizard(tmp_path)
        w.feed("5")
        text = w.feed("w")
        assert text == (
            f"wrote {tmp_path / 'card.json'}; warning: still pending: class(1) background(1) "
            "level(1) scores(2) skills(2) languages(1) gear(1) start(1)"
        )
        card = json.loads((tmp_path / "card.json").read_text(encoding="utf-8"))
        assert card == w.result.card and card["fields"]["race"] == "Half-Elf"
        assert not w.done

    def test_the_whole_half_elf_wizard(self, tmp_path: Path) -> None:
        """The lines a player types build the very card the fixture's answers build."""
        w = wizard(tmp_path)
        feed(w, *HALF_ELF_WIZARD)
        assert w.pending_badges() == []
        assert w.feed("w") == f"wrote {tmp_path / 'card.json'}; every step done"
        assert w.result.card == build_character(FIVE_E, ANSWERS).card

    def test_quit_writes_nothing(self, tmp_path: Path) -> None:
        """`q` ends the wizard and writes nothing."""
        w = wizard(tmp_path)
        feed(w, "5")
        assert w.feed("q") == "quit without writing" and w.done
        assert not (tmp_path / "card.json").exists()
        assert w.feed("n") == ""

    def test_a_seed_drawn_once_is_kept(self) -> None:
        """Without --seed the builder draws one; the answers keep it, so rolls never change."""
        w = Wizard(FIVE_E)
        seed = w.answers["seed"]
        feed(w, "g outfit", "1 wealth")
        faces = w.answers["steps"]["wealth"]["rolls"]["starting_gold"]["faces"]
        feed(w, "g race", "5", "u", "r")
        assert w.answers["seed"] == seed
        assert w.answers["steps"]["wealth"]["rolls"]["starting_gold"]["faces"] == faces

    def test_no_out_file(self) -> None:
        """Without an --out file `w` says so."""
        assert wizard().feed("w") == "no --out file to write to"

    def test_a_card_with_answers_resumes(self, tmp_path: Path) -> None:
        """A card's builder answers are taken up where they were left."""
        card = build_character(FIVE_E, ANSWERS).card
        w = Wizard(FIVE_E, answers=card["builder"]["answers"], card=card)
        assert w.pending_badges() == [] and w.result.card == card


class TestCommand:
    def test_a_ruleset_without_a_builder(self, tmp_path: Path) -> None:
        """A ruleset without a builder exits 1 naming the place."""
        plain = REFERENCE_RULESETS / "ruleset-5e-2014.example.json"
        ran = invoke(main, "character", "new", "--ruleset", plain, "--out", tmp_path / "c.json")
        assert ran.returncode == 1 and "sheet.builder: this ruleset has no builder" in ran.stderr

    def test_end_of_input_quits_without_writing(self, tmp_path: Path) -> None:
        """End of input ends the wizard as `q` does."""
        out = tmp_path / "c.json"
        ran = invoke(main, "character", "new", "--ruleset", RULESET_PATH, "--out", out, stdin="5\n")
        assert ran.returncode == 0 and "picked Half-Elf" in ran.stdout
        assert ran.stdout.rstrip().endswith("quit without writing") and not out.exists()

    def test_a_card_with_answers_resumes(self, tmp_path: Path) -> None:
        """`--card` resumes the card's answers; writing it again gives the same card."""
        card = tmp_path / "c.json"
        card.write_text(json.dumps(build_character(FIVE_E, ANSWERS).card), encoding="utf-8")
        out = tmp_path / "out.json"
        args = ["character", "new", "--ruleset", RULESET_PATH, "--card", card, "--out", out]
        ran = invoke(main, *args, stdin="w\nq\n")
        assert ran.returncode == 0 and "every step done" in ran.stdout
        assert json.loads(out.read_text(encoding="utf-8")) == json.loads(card.read_text())


def gmtags_command() -> list[str]:
    script = Path(sys.executable).with_name("gmtags")
    if not script.exists():
        pytest.skip("no gmtags console script beside this Python")
    return [str(script)]


def test_a_half_elf_wizard_in_a_terminal(tmp_path: Path) -> None:
    """`gmtags character new` in a real pseudo-terminal: the player types the half-elf wizard,
    writes it and quits; a check on an Arcana the builder trained counts the proficiency."""
    pexpect = pytest.importorskip("pexpect")
    out = tmp_path / "ilse.json"
    command = gmtags_command()
    args = [*command[1:], "character", "new", "--ruleset", str(RULESET_PATH)]
    args += ["--out", str(out), "--seed", "2026", "--name", "Ilse"]
    child = pexpect.spawn(
        command[0],
        args,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"},
    )
    try:
        child.expect_exact("[race(1)] subrace✓ class(1)")
        child.expect_exact("race> ")
        for line in HALF_ELF_WIZARD:
            child.sendline(line)
            child.expect(r"\S+> |\[[^\]]*\]: ")
        child.sendline("")  # an empty line shows the screen again
        child.expect_exact("hit_points✓ [start✓]")
        child.expect_exact("  Trained: Arcana +4")
        child.expect_exact("start> ")
        child.sendline("w")
        child.expect_exact("every step done")
        child.sendline("q")
        child.expect_exact("quit without writing")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    card = json.loads(out.read_text(encoding="utf-8"))
    assert card["fields"]["class"] == "Wizard" and card["skills"]["arcana"] == "proficient"
    state = Snapshot.model_validate({"gameCharacterCards": {"Ilse": card}})
    text = '[skill_check: skill="Arcana" dc="10" who="Ilse"]'
    receipt = process(text, FIVE_E, state, seed=1).receipts[0]
    assert receipt.attr("modifier") == "4"  # int 15 → +2, proficient at level 1 → +2


class TestDescribed:
    def hand_written(self) -> dict[str, Any]:
        card = build_character(FIVE_E, ANSWERS).card
        return {"abilities": card["abilities"], "fields": {"race": "Half-Elf"}}

    def test_a_filled_card_opens_described_and_done_lets_picks_change_it(self) -> None:
        """004: picks record what the character is until Done; then unpicking the race takes
        back the Charisma it stood for."""
        card = self.hand_written()
        w = Wizard(FIVE_E, card=card)
        assert "Described:" in w.screen()
        w.feed(number(w, "half-elf"))
        assert w.result.card["abilities"] == card["abilities"]
        shown = w.feed("done")
        assert "Described:" not in shown and w.answers["described"] is False
        assert w.result.card["abilities"] == card["abilities"]
        w.feed(number(w, "half-elf"))  # unpicked
        assert w.result.card["abilities"]["cha"] == card["abilities"]["cha"] - 2

    def test_undo_past_done_is_described_again(self) -> None:
        w = Wizard(FIVE_E, card=self.hand_written())
        feed(w, number(w, "half-elf"), "done", "u")
        assert w.answers["described"] is True

    def test_done_on_a_built_character_is_said(self) -> None:
        assert "not described" in wizard().feed("done")
