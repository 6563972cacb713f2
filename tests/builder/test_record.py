"""The build's append-only record (`gmtags.builder.card.Writer`): every change a build makes
to the player's layer, in order, by the step that made it; taking changes back is exact; and
a build nothing gates is made once."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import build_character, load_ruleset
from gmtags.builder import build as build_module
from gmtags.builder import state as state_module
from gmtags.builder.card import ABSENT, RECORD, Writer, player_layer, take_back
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard
from tests.builder.test_view import FIVE_E, _uses
from tests.conftest import FIXTURES

WIZARD = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text("utf-8"))
BUILDERS = sorted((FIXTURES / "rulesets" / "builder").glob("*.json"))


def without_record(card: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in card.items() if k != RECORD}


class TestWhoWroteWhat:
    def test_each_change_is_recorded_by_the_step_that_made_it(self) -> None:
        """The half-elf wizard: the race step picks the half-elf and writes its rows and
        fields; the scores and the training are written once every step has run."""
        res = build_character(FIVE_E, WIZARD)
        race = [(w.place, w.value) for w in res.record if w.by == "race"]
        assert race[0] == ("picks", "races/half-elf")
        assert ("fields.race", "Half-Elf") in race and ("fields.speed", 30) in race
        scores = {w.place: w.value for w in res.record if w.by == "(scores)"}
        assert scores["abilities.int"] == 15 and scores["abilities.cha"] == 12  # 10 + 2
        trained = {w.place for w in res.record if w.by == "(training)"}
        assert {"skills.arcana", "skills.perception", "saves.int_save"} <= trained
        kit = [w.value["ref"] for w in res.record if w.by == "gear"]
        assert "equipment/spellbook" in kit

    def test_the_record_s_writes_are_the_card_s_builder_writes(self) -> None:
        res = build_character(FIVE_E, WIZARD)
        writes = {w.place: w.value for w in res.record if w.at is None}
        picks = [w.value for w in res.record if w.place == "picks"]
        assert res.card[RECORD]["writes"] == {**writes, "picks": picks}


class TestTakingBack:
    def test_the_whole_record_taken_back_leaves_a_blank_card_blank(self) -> None:
        res = build_character(FIVE_E, WIZARD)
        card = without_record(res.card)
        take_back(card, res.record)
        assert card == {}

    def test_the_player_s_own_values_come_back_from_under_the_builder_s(self) -> None:
        """A skill the player marked by hand ("expert", a tier this sheet does not have, so
        below every tier it has) and a name: the builder trains the skill over the player's
        value, and taking its changes back returns both as the player wrote them."""
        blank = build_character(FIVE_E, {"v": 1, "seed": 1}).card
        blank["skills"] = {"arcana": "expert"}
        blank["fields"] = {**blank.get("fields", {}), "name": "Ilse"}
        mine = player_layer(blank).card
        res = build_character(FIVE_E, WIZARD, blank)
        wrote = next(w for w in res.record if w.place == "skills.arcana")
        assert (wrote.before, wrote.value) == ("expert", "proficient")
        card = without_record(res.card)
        take_back(card, res.record)
        assert card == mine and mine["skills"] == {"arcana": "expert"}

    @settings(max_examples=25, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 10_000)), max_size=10))
    def test_any_build_taken_back_is_the_player_s_layer(self, moves: list[tuple[int, int]]) -> None:
        """However the answers were made (the views' controls used in any order), the
        record taken back from the card built on the last card gives that card's player's
        layer exactly: the card holds nothing the record does not account for."""
        from gmtags.builder.controls import change
        from gmtags.builder.view import step_view

        builder = FIVE_E.sheet.builder_model
        assert builder is not None
        res = build_character(FIVE_E, {"v": 1, "seed": 3})
        for at, pick in moves:
            step = builder.steps[at % len(builder.steps)]
            uses = _uses(step_view(FIVE_E, builder, res, step.id) or [])
            if uses:
                control, value = uses[pick % len(uses)]
                answers = copy.deepcopy(res.answers)
                change(answers, control, value)
                res = build_character(FIVE_E, answers, res.card)
        layer = player_layer(res.card).card
        card = without_record(res.card)
        take_back(card, res.record)
        assert card == layer


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(["fields.a", "fields.b", "skills.c"]),
                  st.integers(0, 3)),
        st.tuples(st.just("pick"), st.sampled_from(["c/x", "c/y", "c/z"]), st.just(0)),
        st.tuples(st.just("row"), st.sampled_from(["l1", "l2"]), st.integers(0, 5)),
        st.tuples(st.just("item"), st.just("items"), st.integers(0, 3)),
    ),
    max_size=25,
)  # fmt: skip


class TestUndo:
    @settings(max_examples=150, deadline=None)
    @given(_OPS, st.data())
    def test_undo_to_any_point_is_the_card_and_the_indexes_as_they_were(
        self, ops: list[tuple[str, str, int]], data: st.DataObject
    ) -> None:
        """Any changes on a card with the player's own values, taken back to any point:
        the card is as it was at that point, and so are the writer's indexes (`writes`,
        `under`, `picks`), as a writer that made only those changes holds them."""
        start = {"fields": {"a": "mine"}, "lists": {"l1": [{"n": "own"}]}, "items": [{"i": 9}]}
        writer = Writer(copy.deepcopy(start))
        seen = [copy.deepcopy(writer.base)]
        for op, place, n in ops:
            if op == "write":
                writer.write(place, n)
            elif op == "pick":
                writer.pick(place)
            elif op == "row":
                rows = (writer.base.get("lists") or {}).get(place) or []
                writer.row(place, {"n": n}, min(n, len(rows)))
            else:
                writer.item({"i": n})
            seen.append(copy.deepcopy(writer.base))
        size = data.draw(st.integers(0, len(writer.record)))
        kept = writer.record[:size]
        version = writer.version
        writer.undo_to(size)
        assert writer.version > version
        assert writer.base == seen[_point(ops, size)]
        again = Writer(copy.deepcopy(start))
        for wrote in kept:
            if wrote.at is None:
                again.write(wrote.place, wrote.value)
            elif wrote.place == "picks":
                again.pick(wrote.value)
            elif wrote.place == "items":
                again.item(wrote.value)
            else:
                again.row(wrote.place.partition(".")[2], wrote.value, wrote.at)
        assert again.base == writer.base and again.record == writer.record
        assert (again.writes, again.under, again.picks) == (
            writer.writes,
            writer.under,
            writer.picks,
        )

    def test_a_write_over_nothing_is_taken_back_to_nothing(self) -> None:
        writer = Writer({})
        writer.write("fields.race", "Elf")
        assert writer.record[0].before is ABSENT
        writer.undo_to(0)
        assert writer.base == {} and writer.writes == {} and writer.under == {}


def _point(ops: list[tuple[str, str, int]], size: int) -> int:
    """How many of `ops` had made the first `size` changes (a pick already on the card
    records nothing)."""
    writer = Writer({"fields": {"a": "mine"}, "lists": {"l1": [{"n": "own"}]}, "items": []})
    for done, (op, place, n) in enumerate(ops):
        if len(writer.record) >= size:
            return done
        if op == "pick":
            writer.pick(place)
        else:
            writer.write("fields.x", n)  # every other op records one change
    return len(ops)


class TestEachBuildOnce:
    def _runs(self, monkeypatch: pytest.MonkeyPatch) -> list[int]:
        made: list[int] = []
        build = build_module._Run.build

        def counted(run: Any) -> None:
            made.append(1)
            build(run)

        monkeypatch.setattr(build_module._Run, "build", counted)
        return made

    def test_a_build_nothing_gates_is_made_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        made = self._runs(monkeypatch)
        build_character(FIVE_E, WIZARD)
        assert len(made) == 1

    def test_a_read_of_the_finished_sheet_builds_again(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A catalog step whose picks count from the sheet (`countFrom`) is built once with
        no count, then again with the count the finished sheet reads (BUILDER §3.11)."""
        data = json.loads((FIXTURES / "rulesets" / "builder" / "5e-builder.json").read_text())
        for step in data["sheet"]["builder"]["steps"]:
            if step["id"] == "cantrips":
                step.pop("max", None)
                step["countFrom"] = {"derived": "proficiency_bonus"}  # 2 at level 1
        ruleset = load_ruleset(data)
        made = self._runs(monkeypatch)
        res = build_character(ruleset, WIZARD)
        assert len(made) == 2
        cantrips = next(s for s in res.steps if s["id"] == "cantrips")
        assert cantrips["active"] == ["fire-bolt", "mage-hand"]
        assert cantrips["inactive"][0]["answer"] == "light"

    @pytest.mark.parametrize("path", BUILDERS, ids=lambda p: p.stem)
    def test_the_sheet_read_once_per_change_is_the_sheet_read_every_time(
        self, path: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`State.values` reads the card again only after a change: a build reading it
        afresh at every call gives the same result, for every bundled builder."""
        try:
            ruleset = load_ruleset(path)
        except Exception:  # a fixture refused on purpose
            pytest.skip("not a loadable builder")
        if ruleset.sheet.builder_model is None:
            pytest.skip("no builder")
        answers = WIZARD if path.stem == "5e-builder" else {"v": 1, "seed": 5}
        cached = build_character(ruleset, answers)

        def afresh(state: Any) -> SheetValues:
            card = CharacterCard.model_validate(state.writer.base)
            return SheetValues(state.ruleset, card, None)

        monkeypatch.setattr(state_module.State, "values", afresh)
        fresh = build_character(ruleset, answers)
        assert fresh == cached and fresh.record == cached.record
