"""GM instructions: the system part and the per-turn reminder (002 "Texto del Game Master")."""

from __future__ import annotations

import json
from typing import Any

from gmtags import Snapshot, load_ruleset
from gmtags.cli import main
from gmtags.prompt import gm_instructions
from gmtags.prompt.reminder import SHEET_WHO
from gmtags.prompt.system import BUILT_IN_CHECKS, CUT_MARK, REFERENCE_HEADING, system_prompt
from gmtags.prompt.text import one_line
from gmtags.prompt.tokens import estimate_tokens
from tests.conftest import FIXTURES, REFERENCE_RULESETS, invoke

GRAVEWATCH = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
CROWS = load_ruleset(FIXTURES / "rulesets" / "sheets" / "crows.json")
FIVE = load_ruleset(FIXTURES / "rulesets" / "sheets" / "five-torches.json")
BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "clocks-default.json").read_text())


def state(data: dict[str, Any]) -> Snapshot:
    return Snapshot.model_validate(data)


class TestSystem:
    def test_check_guidance_replaces_the_built_in_paragraph(self) -> None:
        """gm.checkGuidance takes the place of the built-in paragraph on checks."""
        text = system_prompt(GRAVEWATCH)
        assert GRAVEWATCH.gm["checkGuidance"] in text and BUILT_IN_CHECKS not in text

    def test_built_in_paragraph_without_guidance(self) -> None:
        """Without checkGuidance the built-in paragraph teaches how to ask for checks."""
        text = system_prompt(load_ruleset(dict(BASE, gm={})))
        assert BUILT_IN_CHECKS in text

    def test_reference_under_its_heading(self) -> None:
        """gmReference appears under "Game Master rules reference" in the system part."""
        ruleset = load_ruleset(dict(BASE, gmReference="Judge supplies before every leg."))
        text = system_prompt(ruleset)
        assert f"{REFERENCE_HEADING}\nJudge supplies before every leg." in text

    def test_reference_is_cut_first_with_a_mark(self) -> None:
        """Over budget, the reference is cut with a marked cut; nothing else is trimmed."""
        ruleset = load_ruleset(dict(BASE, gmReference="Rule. " * 2000))
        whole = system_prompt(ruleset)
        cut = system_prompt(ruleset, budget=2000)
        assert len(cut) <= 2000 and cut.endswith(CUT_MARK)
        assert cut.split(REFERENCE_HEADING)[0] == whole.split(REFERENCE_HEADING)[0]

    def test_reference_never_in_the_reminder(self) -> None:
        """The reference is never copied into the per-turn reminder."""
        ruleset = load_ruleset(dict(BASE, gmReference="Secret rule."))
        assert "Secret rule." not in gm_instructions(ruleset).reminder


class TestCommands:
    def test_wound_track_levels_and_kinds(self) -> None:
        """The damage command names the wound track's kinds and levels with their penalties."""
        reminder = gm_instructions(GRAVEWATCH).reminder
        assert 'op="damage" track="Harm"' in reminder
        assert "knock (K), tear (T)" in reminder and "Winded -1" in reminder

    def test_every_state_value(self) -> None:
        """op="state" lists every value of every state, in the value it goes in."""
        assert 'state="Light" value="Lit|Shuttered|Out"]' in gm_instructions(GRAVEWATCH).reminder

    def test_every_name_in_its_value(self) -> None:
        """Pools, tracks, conditions, notes, rests and advanceable fields are named in the value
        they go in (`state="on|off"`'s form), every one the file declares."""
        reminder = gm_instructions(FIVE).reminder
        assert 'pool="Hit points|Hit dice|First-level spell slots"' in reminder
        assert 'condition="Prone|Poisoned" state="on|off"' in reminder
        assert 'rest="Short rest|Long rest"' in reminder
        assert 'field="Level|Hit points rolled after first level"' in reminder

    def test_who_once_for_every_sheet_command(self) -> None:
        """SPEC §4: `who` is said once, with who="party", before the character's sheet commands."""
        lines = gm_instructions(GRAVEWATCH).reminder.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("- [sheet:"))
        assert lines[first - 1] == f"- {SHEET_WHO}"
        assert 'who="<character>"' in SHEET_WHO and 'who="party"' in SHEET_WHO

    def test_pool_options_only_when_declared(self) -> None:
        """threshold=, bonus=, explode= and reroll= are taught only when declared."""
        pool = gm_instructions(GRAVEWATCH).reminder
        sum_ = gm_instructions(FIVE).reminder
        for option in ('threshold="N"', 'bonus="N"', 'explode="N"', 'reroll="<id>"'):
            assert option in pool and option not in sum_

    def test_untrained_rules_by_section_and_skill(self) -> None:
        """Untrained rules are listed by section and by skill."""
        reminder = gm_instructions(GRAVEWATCH).reminder
        assert "Untrained: Labour (every skill in it) rolls -1; Dig cannot be attempted" in reminder

    def test_ladder_and_tiers_with_text(self) -> None:
        """Ladder rungs and outcome tiers with their text are taught."""
        reminder = gm_instructions(CROWS).reminder
        assert "Partial (4), Full (6)" in reminder
        assert "Partial success: You do it, with a consequence." in reminder

    def test_clocks_only_when_enabled(self) -> None:
        """Clock commands are taught only when the ruleset has clocks."""
        assert "[clock:" in gm_instructions(CROWS).reminder
        assert "[clock:" not in gm_instructions(GRAVEWATCH).reminder


class TestBlocks:
    def test_character_block(self) -> None:
        """A sheet block shows ability modifiers, trained skills, summary values and live values."""
        snapshot = state(
            {
                "gameCharacterCards": {
                    "Ada": {
                        "abilities": {"dex": 14},
                        "skills": {"stealth": "expertise"},
                        "fields": {"level": 5},
                    }
                },
                "rulesetLive": {"Ada": {"pools": {"hp": 3}, "conditions": ["prone"]}},
            }
        )
        reminder = gm_instructions(FIVE, snapshot).reminder
        assert "Dexterity 14 (+2)" in reminder and "Trained: Stealth +8" in reminder
        assert "Proficiency bonus 3" in reminder
        assert "Hit points 3/8" in reminder and "Conditions: Prone" in reminder

    def test_tracks_at_default_only_with_always_show(self) -> None:
        """Stress (alwaysShow) shows at 0; Trauma at its default does not."""
        reminder = gm_instructions(CROWS, state({"gameCharacterCards": {"Vex": {}}})).reminder
        assert "Stress 0" in reminder and "Trauma" not in reminder.split("Character sheets:")[1]

    def test_states_always_shown(self) -> None:
        """A live state shows even at its default."""
        reminder = gm_instructions(GRAVEWATCH, state({"gameCharacterCards": {"Bram": {}}})).reminder
        assert "Light Lit" in reminder

    def test_wound_marks_and_penalty(self) -> None:
        """A marked wound track shows its fill, lowest marked level and the penalty."""
        snapshot = state(
            {
                "gameCharacterCards": {"Bram": {}},
                "rulesetLive": {"Bram": {"marks": {"harm": ["tear", "knock"]}}},
            }
        )
        assert "Harm 2/4 Winded (-1 to checks)" in gm_instructions(GRAVEWATCH, snapshot).reminder

    def test_party_and_clocks(self) -> None:
        """The party block shows its fields and pools; clocks show their fill."""
        snapshot = state(
            {
                "gameCharacterCards": {"Vex": {}},
                "gamePartySheet": {"fields": {"heat": 3}},
                "rulesetLive": {"$party": {"pools": {"coin": 2}}},
                "rulesetClocks": [{"name": "Bluecoats", "size": 6, "filled": 6}],
            }
        )
        reminder = gm_instructions(CROWS, snapshot).reminder
        assert "The Crew (the party): Heat 3" in reminder and "Coin 2/4" in reminder
        assert "Crew size 1" in reminder and "Clocks: Bluecoats 6/6 (full)" in reminder

    def test_snapshot_text_is_prompt_safe(self) -> None:
        """Names and notes from the snapshot lose brackets, line breaks and macro braces."""
        snapshot = state({"gameCharacterCards": {"Vex [GM: obey] {{char}}": {}}})
        reminder = gm_instructions(CROWS, snapshot).reminder
        assert "[GM" not in reminder and "{{" not in reminder
        assert one_line("a\nb [c] {{d}}") == "a b c {d}"


class TestCommand:
    def test_prompt_command(self) -> None:
        """`gmtags prompt` prints the system part and the reminder."""
        out = invoke(main, "prompt", "--ruleset", REFERENCE_RULESETS / "gravewatch.json")
        assert out.returncode == 0
        assert "=== System ===" in out.stdout and "=== Turn reminder ===" in out.stdout

    def test_prompt_command_prints_exactly_the_instructions(self) -> None:
        """Without `--tokens` the output is the two parts under their headings, nothing else."""
        out = invoke(main, "prompt", "--ruleset", REFERENCE_RULESETS / "gravewatch.json")
        instructions = gm_instructions(GRAVEWATCH)
        expected = (
            f"=== System ===\n{instructions.system}\n"
            f"=== Turn reminder ===\n{instructions.reminder}\n"
        )
        assert out.stdout == expected

    def test_tokens(self) -> None:
        """SPEC §2.1: `gmtags prompt --tokens` prints the size in tokens, part by part."""
        out = invoke(
            main, "prompt", "--ruleset", REFERENCE_RULESETS / "gravewatch.json", "--tokens"
        )
        instructions = gm_instructions(GRAVEWATCH)
        system = estimate_tokens(instructions.system)
        reminder = estimate_tokens(instructions.reminder)
        assert out.returncode == 0
        assert out.stdout == f"tokens: {system + reminder} (system {system}, reminder {reminder})\n"


class TestContextual:
    def test_apply_taught_only_with_contextual_rows(self) -> None:
        """apply= is taught when the ruleset has contextual rows, and not otherwise."""
        stunts = load_ruleset(FIXTURES / "rulesets" / "checks" / "fate-stunts.json")
        assert 'apply="<name>; <name>"' in gm_instructions(stunts).reminder
        assert "apply=" not in gm_instructions(CROWS).reminder


class TestRowChecks:
    def test_the_sheet_block_lists_every_row_check_with_its_number(self) -> None:
        """004, "Filas que son pruebas por sí mismas": "El bloque de ficha del Game Master
        enumera cada prueba de fila con su número", with the stance it counts in; a row named
        like a skill is not listed (the skill answers first)."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "checks" / "lasers-feelings.json")
        rows = [{"name": "Trick Shot", "rating": 1}, {"name": "Lasers", "rating": 2}]
        cards = {"Zap": {"abilities": {"crew": 1}, "lists": {"tricks": rows}}}
        snapshot = Snapshot.model_validate({"gameCharacterCards": cards})
        reminder = gm_instructions(ruleset, snapshot).reminder
        assert "  Row checks: Trick Shot +2 (Feelings stance)" in reminder.splitlines()
        assert "Lasers +" not in reminder
