"""The party builder (BUILDER chunk I; 002 "Creación compartida del grupo", 1.163): the shared
sheet built like a character's over the party's own fields and lists, `fromMembers` read from
the members at every build, import checks of the catalogs the party picks from, and
`gmtags character build --party`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gmtags import AnswersError, RulesetError, build_character, load_ruleset
from gmtags.cli import main
from gmtags.state.snapshot import PartySheet, Snapshot
from tests.conftest import FIXTURES, Ran, invoke

CREW = FIXTURES / "rulesets" / "builder" / "crew-builder.json"
CREW_JSON: dict[str, Any] = json.loads(CREW.read_text(encoding="utf-8"))
RULESET = load_ruleset(CREW)

ANSWERS: dict[str, Any] = {
    "v": 1,
    "seed": 1,
    "steps": {
        "crew_type": {"picks": ["shadows"]},
        "special": {"picks": ["ghost-echoes"]},
        "upgrades": {
            "rows": [{"name": "Hidden lair", "boxes": 1}, {"name": "Thieves' tools", "boxes": 2}]
        },
        "lair": {"fields": {"lair": "An old bell tower"}},
    },
}
THREE = {"Vex": {}, "Nim": {}, "Cass": {}}


def crew(members: dict[str, Any] | None = THREE, answers: dict[str, Any] = ANSWERS) -> Any:
    return build_character(RULESET, answers, None, party=True, members=members)


def step(res: Any, step_id: str) -> dict[str, Any]:
    return next(entry for entry in res.steps if entry["id"] == step_id)


class TestTheCrew:
    def test_the_seeds_example_upgrades_and_size_from_its_members(self) -> None:
        """002: `steps:[{id:upgrades,kind:rows,list:upgrades}]` with `fromMembers: [{field: size,
        count: true}]`: the upgrades are the party's rows; three members pay three boxes."""
        res = crew()
        rows = res.card["lists"]["upgrades"]
        assert [(r["name"], r["boxes"]) for r in rows] == [
            ("Hidden lair", 1),
            ("Thieves' tools", 2),
        ]
        assert res.pools["upgrade_points"] == {"budget": 3, "spent": 3, "credit": 0, "remaining": 0}
        assert res.pending == {"crew_type": 0, "special": 0, "upgrades": 0, "lair": 0}

    def test_the_sheet_is_a_party_sheet(self) -> None:
        """What the build gives is a `gamePartySheet`: fields and lists, no character section,
        no field read from the members."""
        card = crew().card
        PartySheet.model_validate(card)
        assert not {"abilities", "skills", "saves", "bonuses", "items"} & set(card)
        assert "size" not in card["fields"]
        assert card["fields"] == {
            "crew_type": "Shadows",
            "hunting": "Silkshore",
            "lair": "An old bell tower",
        }

    def test_a_catalog_step_feeds_a_party_list(self) -> None:
        """002: the party's catalog steps read the catalogs feeding the party's lists; `within`
        offers only the crew type's abilities."""
        res = crew()
        assert [r["name"] for r in res.card["lists"]["abilities"]] == ["Ghost Echoes"]
        assert step(res, "special")["offered"] == ["everyone-steals", "ghost-echoes"]
        other = copy.deepcopy(ANSWERS)
        other["steps"]["special"] = {"picks": ["deadly"]}
        res = crew(answers=other)
        assert step(res, "special")["inactive"][0]["answer"] == "deadly"
        assert "abilities" not in res.card.get("lists", {})

    def test_members_leaving_change_the_budget_at_once(self) -> None:
        """002: "si un personaje se une o se va, cambian al instante": one member pays one box,
        so the second upgrade waits, inactive, and its step's badge counts it."""
        res = crew({"Vex": {}})
        assert res.pools["upgrade_points"]["budget"] == 1
        assert step(res, "upgrades")["inactive"] == [
            {"answer": 1, "reason": "pool 'upgrade_points' cannot pay it"}
        ]
        assert res.pending["upgrades"] == 1
        assert [r["name"] for r in res.card["lists"]["upgrades"]] == ["Hidden lair"]

    def test_no_members_no_budget(self) -> None:
        res = crew(None)
        assert res.pools["upgrade_points"]["budget"] == 0
        assert "upgrades" not in res.card.get("lists", {})

    def test_a_member_sum(self) -> None:
        """`{field, sum}`: what a number field of the characters adds up to (Totem points)."""
        data = copy.deepcopy(CREW_JSON)
        data["party"]["fromMembers"] = [{"field": "size", "sum": "coin_stash"}]
        ruleset = load_ruleset(data)
        members = {"Vex": {"fields": {"coin_stash": 2}}, "Nim": {"fields": {"coin_stash": 1}}}
        res = build_character(ruleset, ANSWERS, None, party=True, members=members)
        assert res.pools["upgrade_points"]["budget"] == 3

    def test_the_same_answers_give_the_same_sheet(self) -> None:
        assert crew().card == crew().card

    def test_building_on_the_sheet_keeps_what_play_wrote(self) -> None:
        """A built sheet passed back with heat from play: the builder keeps the player's value
        and rebuilds its own."""
        card = crew().card
        card["fields"]["heat"] = 3
        again = build_character(RULESET, ANSWERS, card, party=True, members=THREE)
        assert again.card["fields"]["heat"] == 3
        assert again.card["lists"] == crew().card["lists"]

    def test_a_sheet_written_in_play_opens_described(self) -> None:
        """H1 on the party sheet: heat from play and no builder record opens described (picks
        change nothing) until Done."""
        sheet = {"fields": {"heat": 2}}
        res = build_character(RULESET, ANSWERS, sheet, party=True, members=THREE)
        assert res.card["fields"] == {"heat": 2} and "lists" not in res.card
        assert res.card["builder"]["answers"]["described"] is True
        done = build_character(
            RULESET, {**ANSWERS, "described": False}, res.card, party=True, members=THREE
        )
        assert done.card["fields"]["heat"] == 2 and done.card["fields"]["crew_type"] == "Shadows"

    def test_members_alone_never_make_a_sheet_described(self) -> None:
        """A field read from the members is on every build's sheet, the blank one too."""
        res = crew()
        assert res.card["builder"]["answers"].get("described") is not True


class TestRefusals:
    def test_a_ruleset_without_a_party(self) -> None:
        ruleset = load_ruleset(FIXTURES / "rulesets" / "builder" / "5e-builder.json")
        with pytest.raises(RulesetError, match="no party sheet"):
            build_character(ruleset, ANSWERS, party=True)

    def test_a_party_without_a_builder(self) -> None:
        ruleset = load_ruleset(FIXTURES / "rulesets" / "sheets" / "crows.json")
        with pytest.raises(RulesetError, match=r"party\.builder"):
            build_character(ruleset, ANSWERS, party=True)

    def test_a_member_that_is_not_a_card(self) -> None:
        with pytest.raises(AnswersError) as raised:
            crew({"Vex": {"abilities": {"str": "high"}}})
        assert next(p.path for p in raised.value.problems).startswith("members.Vex.abilities.str")

    def test_a_party_catalog_feeding_a_list_the_party_lacks(self) -> None:
        """A catalog only the party builder picks from is read against the party sheet."""
        data = copy.deepcopy(CREW_JSON)
        data["catalogs"][1]["feeds"] = ["abilities", "cohorts"]
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        assert [p.path for p in raised.value.problems] == ["catalogs.1.feeds.1"]

    def test_a_party_catalog_setting_a_character_field(self) -> None:
        data = copy.deepcopy(CREW_JSON)
        data["catalogs"][0]["entries"][0]["grants"]["sets"] = {"playbook": "Cutter"}
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        assert [p.path for p in raised.value.problems] == [
            "catalogs.0.entries.0.grants.sets.playbook"
        ]

    def test_a_catalog_no_builder_picks_from_is_the_characters(self) -> None:
        """Without the party's step, the crew abilities catalog feeds a list no character has."""
        data = copy.deepcopy(CREW_JSON)
        data["party"]["builder"]["steps"] = [data["party"]["builder"]["steps"][3]]
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        assert "catalogs.1.feeds.0" in [p.path for p in raised.value.problems]


def gmtags(*args: str | Path) -> Ran:
    return invoke(main, *args)


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


class TestCommandLine:
    def state(self, tmp_path: Path, revision: int = 4) -> Path:
        data = {
            "gameCharacterCards": {"Vex": {}, "Nim": {}},
            "gamePartySheetRevision": revision,
        }
        return write(tmp_path / "state.json", data)

    def build(self, tmp_path: Path, *extra: str | Path) -> Ran:
        answers = write(tmp_path / "answers.json", ANSWERS)
        return gmtags(
            "character", "build", "--ruleset", CREW, "--answers", answers, "--party", *extra
        )

    def test_the_party_sheet_saved_into_the_state(self, tmp_path: Path) -> None:
        """`--party --state S --state-out S2`: the sheet built from the state's members, saved,
        the revision one higher."""
        out = tmp_path / "out.json"
        ran = self.build(tmp_path, "--state", self.state(tmp_path), "--state-out", out)
        assert ran.returncode == 0, ran.stderr
        sheet = json.loads(ran.stdout)
        assert sheet["lists"]["upgrades"][0]["name"] == "Hidden lair"
        saved = Snapshot.model_validate_json(out.read_text(encoding="utf-8"))
        assert saved.game_party_sheet_revision == 5
        assert saved.to_json_dict()["gamePartySheet"] == sheet
        assert "upgrades  1 pending" in ran.stderr  # two members pay two of three boxes

    def test_a_stale_revision_is_refused_and_nothing_written(self, tmp_path: Path) -> None:
        out, card = tmp_path / "out.json", tmp_path / "card.json"
        ran = self.build(
            tmp_path,
            "--state",
            self.state(tmp_path),
            "--state-out",
            out,
            "--revision",
            "3",
            "--out",
            card,
        )
        assert ran.returncode == 1
        assert "opened on revision 3, now 4" in ran.stderr
        assert not out.exists() and not card.exists()
        again = self.build(
            tmp_path, "--state", self.state(tmp_path), "--state-out", out, "--revision", "4"
        )
        assert again.returncode == 0 and out.exists()

    def test_a_party_sheet_card(self, tmp_path: Path) -> None:
        """`--card` with `--party` is a party sheet (its keys checked as one)."""
        good = write(tmp_path / "sheet.json", {"fields": {"heat": 1}})
        assert self.build(tmp_path, "--card", good).returncode == 0
        bad = write(tmp_path / "bad.json", {"fields": {"heat": [1]}})
        ran = self.build(tmp_path, "--card", bad)
        assert ran.returncode == 1 and "party sheet" in ran.stderr and "fields.heat" in ran.stderr

    def test_usage(self, tmp_path: Path) -> None:
        state = self.state(tmp_path)
        assert self.build(tmp_path, "--name", "Vex", "--state", state).returncode == 2
        assert self.build(tmp_path, "--state-out", tmp_path / "o.json").returncode == 2

    def test_a_ruleset_without_a_party_builder(self, tmp_path: Path) -> None:
        answers = write(tmp_path / "answers.json", ANSWERS)
        crows = FIXTURES / "rulesets" / "sheets" / "crows.json"
        ran = gmtags("character", "build", "--ruleset", crows, "--answers", answers, "--party")
        assert ran.returncode == 1 and "cannot build the party sheet" in ran.stderr
