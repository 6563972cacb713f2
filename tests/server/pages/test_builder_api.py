"""gmtags/server/pages/builder.py: the builder's two JSON endpoints (SPEC §10, §11)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from starlette.testclient import TestClient

from gmtags import build_character, load_ruleset
from gmtags.server.app import create_app
from gmtags.server.config import ServerConfig
from gmtags.state.snapshot import Snapshot
from tests.json_values import JSON

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
FIVE_E = FIXTURES / "rulesets" / "builder" / "5e-builder.json"
CREW = FIXTURES / "rulesets" / "builder" / "crew-builder.json"
WIZARD = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text("utf-8"))
BUILD = "/gmtags/api/builder/build"
SAVE = "/gmtags/api/builder/save"
CREW_ANSWERS = {"v": 1, "seed": 1, "steps": {"crew_type": {"picks": ["shadows"]}}}


def client_for(path: Path, start: Snapshot | None = None) -> Iterator[TestClient]:
    ruleset = load_ruleset(path)
    config = ServerConfig(
        ruleset=ruleset, upstream="http://127.0.0.1:9/v1", db=":memory:", start=start or Snapshot()
    )
    with TestClient(create_app(config), base_url="http://127.0.0.1") as client:
        yield client


@pytest.fixture
def five_e() -> Iterator[TestClient]:
    yield from client_for(FIVE_E)


@pytest.fixture(scope="module")
def any_five_e() -> Iterator[TestClient]:
    """The 5e builder's server, one for a whole property test (the build endpoint is
    stateless, so its examples share it)."""
    yield from client_for(FIVE_E)


@pytest.fixture
def crew() -> Iterator[TestClient]:
    yield from client_for(CREW)


def crew_members() -> dict[str, Any]:
    ruleset = load_ruleset(CREW)
    card = build_character(ruleset, {"v": 1, "seed": 1}).card if ruleset.sheet.builder else {}
    return {"Vex": card, "Ada": card}


def embedded(page: str) -> Any:
    """The JSON the builder page carries for its script."""
    marker = '<script type="application/json" id="gb-data">'
    start = page.index(marker) + len(marker)
    return json.loads(page[start : page.index("</script>", start)])


class TestBuild:
    def test_a_character_is_the_library_build(self, five_e: TestClient) -> None:
        """The build endpoint answers exactly what build_character gives, every §10 key."""
        reply = five_e.post(BUILD, json={"answers": WIZARD})
        assert reply.status_code == 200
        expected = build_character(load_ruleset(FIVE_E), WIZARD)
        body = reply.json()
        assert set(body) == {
            "card", "pending", "steps", "pools", "ledger", "profile", "dropped", "answers",
            "problems",
        }  # fmt: skip
        assert body["card"] == expected.card
        assert body["pending"] == expected.pending
        assert body["pools"]["scores"]["remaining"] == 0

    def test_the_card_passed_back_keeps_hand_edits(self, five_e: TestClient) -> None:
        """A card sent with the answers is built on: a value the builder wrote and the player
        changed stays while the builder's answer for it does not change."""
        card = five_e.post(BUILD, json={"answers": WIZARD}).json()["card"]
        card["fields"]["speed"] = 35
        reply = five_e.post(BUILD, json={"answers": WIZARD, "card": card}).json()
        assert reply["card"]["fields"]["speed"] == 35
        assert reply["dropped"] == []
        answers = copy.deepcopy(WIZARD)
        answers["steps"]["race"]["picks"] = ["dwarf"]
        changed = five_e.post(BUILD, json={"answers": answers, "card": card}).json()
        assert changed["card"]["fields"]["speed"] == 25
        assert changed["dropped"][0]["path"] == "fields.speed"

    def test_what_the_page_shows_of_a_step(self, five_e: TestClient) -> None:
        """The page renders each step's reasons and whether it is required: a point buy 2 points
        over budget says so (004: "puntos restantes negativos cuando se ha gastado de más"),
        and the starting gold (`requiredWhen: {"const": 0}`) is not required."""
        answers = copy.deepcopy(WIZARD)
        answers["steps"]["scores"]["scores"] = {"str": 15, "dex": 15, "con": 15, "int": 10}
        body = five_e.post(BUILD, json={"answers": answers}).json()
        steps = {s["id"]: s for s in body["steps"]}
        assert body["pending"]["scores"] == 1 and body["pools"]["scores"]["remaining"] == -2
        assert steps["scores"]["reasons"] == ["2 points over budget (29 spent of 27)"]
        assert steps["wealth"]["required"] is False and steps["scores"]["required"] is True

    def test_the_page_asks_for_the_views_of_the_steps_it_draws_from_them(
        self, five_e: TestClient
    ) -> None:
        """With `"view": true` (the page's own) the build also gives, by step, the controls
        of every step (the page draws each step from them alone); without it the answer is
        the §10 result alone."""
        body = five_e.post(BUILD, json={"answers": WIZARD, "view": True}).json()
        assert list(body["view"]) == [s["id"] for s in body["steps"]]
        start = body["view"]["start"]
        assert start[0] == {
            "type": "fact",
            "label": "Hit point maximum",
            "value": "now 8, Set writes 8",
            "mark": "",
        }
        assert start[-1] == {
            "type": "press", "label": "Set again", "path": ["steps", "start", "set"], "value": 2,
            "op": "put", "disabled": False, "name": "set-start",
        }  # fmt: skip
        assert "view" not in five_e.post(BUILD, json={"answers": WIZARD}).json()

    def test_bad_answers_are_400_with_their_paths(self, five_e: TestClient) -> None:
        """Answers of the wrong shape: 400 listing every problem at its place in the body."""
        reply = five_e.post(BUILD, json={"answers": {"v": 2, "steps": {"race": {"pick": []}}}})
        assert reply.status_code == 400
        paths = {p["path"] for p in reply.json()["problems"]}
        assert paths == {"answers.v", "answers.steps.race.pick"}
        assert reply.json()["error"]

    @pytest.mark.parametrize(
        ("answers", "called"),
        [
            ([], "an array"),
            ([{"v": 1}], "an array"),
            (3, "a number"),
            ("v", "a string"),
            (None, "null"),
            (False, "a boolean"),
        ],
    )
    def test_answers_that_are_no_object_are_400_at_answers(
        self, five_e: TestClient, answers: Any, called: str
    ) -> None:
        """SPEC §8: answers of the wrong shape ("`null`, a number, a list where an object
        belongs") are the library's own error: a 400 JSON error at `answers`, never a 500."""
        reply = five_e.post(BUILD, json={"answers": answers})
        assert reply.status_code == 400
        assert reply.json() == {
            "error": "the answers or the card are invalid",
            "problems": [
                {"path": "answers", "message": f"the answers are a JSON object, not {called}"}
            ],
        }

    def test_a_wrong_type_deep_in_a_step_is_400_at_its_path(self, five_e: TestClient) -> None:
        """A roll's face that is text, deep in a step's answer, is named where it is."""
        rolls = {"str": {"faces": [3, "4", 5]}}
        answers = {"v": 1, "steps": {"scores": {"method": "roll", "rolls": rolls}}}
        reply = five_e.post(BUILD, json={"answers": answers})
        assert reply.status_code == 400
        assert [p["path"] for p in reply.json()["problems"]] == [
            "answers.steps.scores.rolls.str.faces.1"
        ]

    def test_an_answer_to_no_step_is_a_problem_of_the_build(self, five_e: TestClient) -> None:
        """SPEC §10: answers naming nothing real are `problems` of the result, never refused:
        200, the real answers built, the answer to no step at its path."""
        answers = {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf"]}, "racce": {}}}
        reply = five_e.post(BUILD, json={"answers": answers})
        assert reply.status_code == 200
        body = reply.json()
        assert body["card"]["fields"]["race"] == "Elf"
        assert body["problems"] == [
            {"path": "steps.racce", "message": "not a step of this builder"}
        ]

    @settings(max_examples=60, deadline=None)
    @given(answers=JSON)
    def test_any_json_value_as_the_answers(self, any_five_e: TestClient, answers: Any) -> None:
        """Any JSON value as the answers is built (200) or refused with a JSON error (400:
        the NaN and infinities the body may hold too), never a 500."""
        body = json.dumps({"answers": answers}).encode()
        reply = any_five_e.post(BUILD, content=body, headers={"content-type": "application/json"})
        assert reply.status_code in (200, 400), reply.text
        if reply.status_code == 400:
            assert reply.json()["error"] and reply.json()["problems"]

    def test_a_bad_card_is_400_at_its_place(self, five_e: TestClient) -> None:
        """A card that is not one is refused before the build, at `card.<place>`."""
        reply = five_e.post(BUILD, json={"answers": WIZARD, "card": {"abilities": "x"}})
        assert reply.status_code == 400
        assert reply.json()["problems"][0]["path"].startswith("card.abilities")

    def test_a_body_that_is_not_json_is_400(self, five_e: TestClient) -> None:
        """Not JSON, or no answers: 400 naming the place."""
        reply = five_e.post(BUILD, content=b"{nope", headers={"content-type": "application/json"})
        assert reply.status_code == 400
        reply = five_e.post(BUILD, json={"card": {}})
        assert reply.json()["problems"] == [{"path": "answers", "message": "required"}]

    def test_no_party_builder_is_400_naming_it(self, five_e: TestClient) -> None:
        """A party build on a ruleset without a party builder: 400 naming what is missing."""
        reply = five_e.post(BUILD, json={"answers": {"v": 1}, "party": True})
        assert reply.status_code == 400
        assert reply.json()["problems"][0]["path"] == "party"

    def test_a_party_build_reads_the_chat_s_members(self, crew: TestClient) -> None:
        """With party, fromMembers reads the chat's characters (Crew size = how many)."""
        members = crew_members()
        for name, card in members.items():
            assert (
                crew.post(SAVE, json={"chat": "c", "name": name, "card": card}).status_code == 200
            )
        reply = crew.post(BUILD, json={"answers": CREW_ANSWERS, "party": True, "chat": "c"})
        assert reply.status_code == 200
        body = reply.json()
        assert body["pools"]["upgrade_points"]["budget"] == 2
        assert "size" not in body["card"].get("fields", {})  # member fields are never stored
        alone = crew.post(BUILD, json={"answers": CREW_ANSWERS, "party": True}).json()
        assert alone["pools"]["upgrade_points"]["budget"] == 0


class TestSave:
    def test_a_saved_card_is_in_the_chat_s_state(self, five_e: TestClient) -> None:
        """Saving a card writes gameCharacterCards[name]; the state endpoint shows it."""
        card = five_e.post(BUILD, json={"answers": WIZARD}).json()["card"]
        reply = five_e.post(SAVE, json={"chat": "c1", "name": "Ilse", "card": card})
        assert reply.status_code == 200
        assert reply.json()["state"]["gameCharacterCards"]["Ilse"] == card
        state = five_e.get("/gmtags/chats/c1/state").json()
        assert state["gameCharacterCards"]["Ilse"]["skills"]["arcana"] == "proficient"

    def test_a_save_tells_the_chat_s_followers(
        self, five_e: TestClient, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A save signals the chat changed (the state page's live updates); a refused one not."""
        told: list[str] = []
        events = five_e.app.state.book.events  # type: ignore[attr-defined]
        monkeypatch.setattr(events, "changed", told.append)
        five_e.post(SAVE, json={"chat": "c1", "name": "Ilse", "card": {}})
        five_e.post(SAVE, json={"chat": "c1", "name": "", "card": {}})
        assert told == ["c1"]

    def test_saving_under_the_same_name_replaces(self, five_e: TestClient) -> None:
        """A second save under a name that normalises the same replaces the first card."""
        card = five_e.post(BUILD, json={"answers": WIZARD}).json()["card"]
        five_e.post(SAVE, json={"chat": "c1", "name": "Ilse", "card": card})
        reply = five_e.post(SAVE, json={"chat": "c1", "name": "ilse", "card": {"fields": {}}})
        assert list(reply.json()["state"]["gameCharacterCards"]) == ["Ilse"]

    def test_bad_saves_are_refused_naming_the_place(self, five_e: TestClient) -> None:
        """No chat, no name, no card: 400 at its place; a name or card the sheet cannot hold:
        422 at its place; nothing written."""
        assert five_e.post(SAVE, json={"name": "A", "card": {}}).json()["problems"][0]["path"] == (
            "chat"
        )
        reply = five_e.post(SAVE, json={"chat": "c2", "card": {}})
        assert reply.status_code == 400 and reply.json()["problems"][0]["path"] == "name"
        reply = five_e.post(SAVE, json={"chat": "c2", "name": " ", "card": {}})
        assert reply.status_code == 422 and reply.json()["problems"][0]["path"] == "name"
        reply = five_e.post(SAVE, json={"chat": "c2", "name": "A", "card": {"abilities": 3}})
        assert reply.status_code == 422
        assert reply.json()["problems"][0]["path"].startswith("card.abilities")
        reply = five_e.post(SAVE, json={"chat": "c2", "name": "!!!", "card": {}})
        assert reply.status_code == 422
        assert reply.json()["problems"][0]["path"] == "name"
        assert five_e.get("/gmtags/chats/c2/state").status_code == 404

    @pytest.mark.parametrize(
        ("card", "path"),
        [
            ({"fields": {"hit_die": "hot"}}, "card.fields.hit_die"),
            ({"fields": {"level": 10**15}}, "card.fields.level"),
            ({"fields": {"level": -3}}, "card.fields.level"),
            ({"fields": {"class": "x" * 81}}, "card.fields.class"),
            ({"abilities": {"str": 31}}, "card.abilities.str"),
            ({"fields": {"mood": "grim"}}, "card.fields.mood"),
        ],
    )
    def test_a_value_the_sheet_cannot_hold_is_422(
        self, five_e: TestClient, card: dict[str, Any], path: str
    ) -> None:
        """An enum value it does not offer, a number past its range, text past its length, a key
        it does not declare: never stored."""
        reply = five_e.post(SAVE, json={"chat": "c3", "name": "Ilse", "card": card})
        assert reply.status_code == 422
        assert [p["path"] for p in reply.json()["problems"]] == [path]
        assert five_e.get("/gmtags/chats/c3/state").status_code == 404

    @pytest.mark.parametrize("name", ["x" * 900_000, "x" * 101, "Ilse\x00", "Il\nse", ""])
    def test_a_name_that_cannot_be_one_is_422(self, five_e: TestClient, name: str) -> None:
        reply = five_e.post(SAVE, json={"chat": "c4", "name": name, "card": {}})
        assert reply.status_code == 422
        assert [p["path"] for p in reply.json()["problems"]] == ["name"]

    def test_every_problem_at_once(self, five_e: TestClient) -> None:
        card = {"fields": {"hit_die": "hot", "level": 99}, "abilities": {"str": 0}}
        reply = five_e.post(SAVE, json={"chat": "c5", "name": "", "card": card})
        paths = sorted(p["path"] for p in reply.json()["problems"])
        assert paths == ["card.abilities.str", "card.fields.hit_die", "card.fields.level", "name"]

    def test_a_name_of_100_characters_is_saved(self, five_e: TestClient) -> None:
        reply = five_e.post(SAVE, json={"chat": "c6", "name": "x" * 100, "card": {}})
        assert reply.status_code == 200

    def test_a_party_sheet_the_sheet_cannot_hold_is_422(self, crew: TestClient) -> None:
        sheet = {"fields": {"no_such_field": 1}, "abilities": {"str": 3}}
        reply = crew.post(SAVE, json={"chat": "p2", "party": True, "sheet": sheet, "revision": 0})
        assert reply.status_code == 422
        paths = sorted(p["path"] for p in reply.json()["problems"])
        assert paths == ["sheet.abilities", "sheet.fields.no_such_field"]

    def test_a_party_save_raises_the_revision(self, crew: TestClient) -> None:
        """A party save on the current revision writes the sheet and raises the revision."""
        sheet = crew.post(BUILD, json={"answers": CREW_ANSWERS, "party": True}).json()["card"]
        reply = crew.post(SAVE, json={"chat": "p", "party": True, "sheet": sheet, "revision": 0})
        assert reply.status_code == 200
        state = reply.json()["state"]
        assert state["gamePartySheetRevision"] == 1
        assert state["gamePartySheet"]["fields"]["crew_type"] == sheet["fields"]["crew_type"]
        assert crew.get("/gmtags/chats/p/state").json()["gamePartySheetRevision"] == 1

    def test_a_stale_party_save_is_409_and_writes_nothing(self, crew: TestClient) -> None:
        """Saving on an old revision: 409 with the latest state, nothing written; saving
        again on the latest revision replaces it."""
        mine = crew.post(BUILD, json={"answers": CREW_ANSWERS, "party": True}).json()["card"]
        theirs = {"fields": {"lair": "The old mill"}}
        first = crew.post(SAVE, json={"chat": "p", "party": True, "sheet": theirs, "revision": 0})
        assert first.status_code == 200
        stale = crew.post(SAVE, json={"chat": "p", "party": True, "sheet": mine, "revision": 0})
        assert stale.status_code == 409
        body = stale.json()
        assert body["error"]
        assert body["latest"]["gamePartySheet"] == theirs
        assert body["latest"]["gamePartySheetRevision"] == 1
        assert crew.get("/gmtags/chats/p/state").json()["gamePartySheet"] == theirs
        again = crew.post(SAVE, json={"chat": "p", "party": True, "sheet": mine, "revision": 1})
        assert again.status_code == 200
        assert again.json()["state"]["gamePartySheetRevision"] == 2
        assert crew.get("/gmtags/chats/p/state").json()["gamePartySheet"] == mine

    def test_a_party_save_needs_its_revision(self, crew: TestClient) -> None:
        """A party save without a whole revision is 400 at `revision`."""
        reply = crew.post(SAVE, json={"chat": "p", "party": True, "sheet": {}, "revision": "0"})
        assert reply.status_code == 400
        assert reply.json()["problems"][0]["path"] == "revision"


class TestPage:
    def test_the_page_embeds_the_builder_and_escapes_text(self, five_e: TestClient) -> None:
        """The page carries the builder model as JSON no text can break out of."""
        reply = five_e.get("/gmtags/builder", params={"chat": "</script><b>x"})
        assert reply.status_code == 200
        text = reply.text
        assert "</script><b>" not in text
        data = embedded(text)
        assert data["chat"] == "</script><b>x"
        assert [s["id"] for s in data["builder"]["steps"]][:3] == ["race", "subrace", "class"]
        assert five_e.get("/gmtags/static/builder/builder.js").status_code == 200

    def test_the_page_opens_a_saved_card(self, five_e: TestClient) -> None:
        """`name=` opens that character's card with the answers it was built from."""
        card = five_e.post(BUILD, json={"answers": WIZARD}).json()["card"]
        five_e.post(SAVE, json={"chat": "c1", "name": "Ilse", "card": card})
        text = five_e.get("/gmtags/builder", params={"chat": "c1", "name": "ilse"}).text
        data = embedded(text)
        assert data["name"] == "Ilse"
        assert data["answers"]["steps"]["race"] == {"picks": ["half-elf"]}

    def test_no_party_builder_is_a_404_page(self, five_e: TestClient) -> None:
        """`party=1` on a ruleset without a party builder says so."""
        reply = five_e.get("/gmtags/builder", params={"party": "1"})
        assert reply.status_code == 404
        assert "party.builder" in reply.text
