"""gmtags/history/forms.py: a snapshot's storage form put together from its parts' pieces."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Snapshot, load_ruleset, process
from gmtags.history.forms import Group, form_of, snapshot_form
from gmtags.history.parts import split
from gmtags.history.snapshots import snapshot_hash
from tests.conftest import FIXTURES
from tests.history.test_parts import SNAPSHOTS, built_card

CROWS = load_ruleset(FIXTURES / "rulesets" / "sheets" / "crows.json")
REPLIES = (
    '[clock: name="Alarm" size="6"]',
    '[clock: name="Alarm" tick="1"] [skill_check: ability="Finesse" who="Vex"]',
    '[sheet: who="Nim" op="track" track="stress" by="2"]',
    '[sheet: sheet="party" op="restore" pool="coin" amount="1"]',
    '[clock: name="Alarm" tick="-1"] [sheet: who="Nim" op="track" track="stress" by="-1"]',
    "Rain on the canal.",
)


def _spelled(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


class TestForm:
    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(SNAPSHOTS)
    def test_the_form_is_the_storage_form_and_the_name(self, snapshot: Snapshot) -> None:
        """The data is `to_json_dict()` (key order included), the name `snapshot_hash`; a second
        form of the same snapshot (from the kept pieces) is the same."""
        for _ in range(2):
            form = snapshot_form(snapshot)
            assert _spelled(form.data) == _spelled(snapshot.to_json_dict())
            assert form.name == snapshot_hash(snapshot)

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(SNAPSHOTS)
    def test_a_split_form_is_the_split_data(self, snapshot: Snapshot) -> None:
        """Cutting the form into parts gives what cutting the JSON data gives."""
        assert split(snapshot_form(snapshot)) == split(snapshot.to_json_dict())

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.sampled_from(REPLIES), min_size=1, max_size=12), st.integers(0, 2**32))
    def test_a_chain_of_replies_is_named_right(self, replies: list[str], seed: int) -> None:
        """Each snapshot of a chain shares the parts a reply did not touch with the one before;
        a part that changed is never given the piece of the part it replaced."""
        state = Snapshot.model_validate(
            {
                "gameCharacterCards": {"Vex": {"abilities": {"finesse": 2}}, "Nim": {}},
                "gamePartySheet": {"fields": {"vault": 8}},
            }
        )
        for number, reply in enumerate(replies):
            state = process(reply, CROWS, state, seed=seed + number).snapshot
            form = snapshot_form(state)
            assert form.name == snapshot_hash(state)
            assert _spelled(form.data) == _spelled(state.to_json_dict())

    def test_unchanged_cards_are_serialised_once(self) -> None:
        """A clock tick leaves the cards as they were: the next snapshot's form takes their
        pieces as they are, the very same objects."""
        card = built_card()
        rules = load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")
        start = Snapshot.model_validate(
            {
                "gameCharacterCards": {"Ada": card, "Bram": card},
                "rulesetClocks": [{"name": "Alarm", "size": 6, "filled": 0}],
            }
        )
        after = process('[clock: name="Alarm" tick="1"]', rules, start, seed=1).snapshot
        one, two = snapshot_form(start), snapshot_form(after)
        assert one.name != two.name
        cards_one, cards_two = one.slots["gameCharacterCards"], two.slots["gameCharacterCards"]
        assert isinstance(cards_one, Group) and isinstance(cards_two, Group)
        assert cards_two is cards_one
        assert two.slots["rulesetClocks"] is not one.slots["rulesetClocks"]
        assert two.data["rulesetClocks"] == [{"name": "Alarm", "size": 6, "filled": 1}]

    def test_cards_keep_their_order_and_live_entries_are_sorted(self) -> None:
        """Canonical text: the first card is the player's, so cards keep their order; the live
        entries are sorted. The data keeps both in their own order."""
        data = {
            "gameCharacterCards": {"Zed": {}, "Ada": {}},
            "rulesetLive": {"zed": {"pools": {"hp": 1}}, "ada": {"pools": {"hp": 2}}},
        }
        snapshot = Snapshot.model_validate(data)
        form = snapshot_form(snapshot)
        assert list(form.data["gameCharacterCards"]) == ["Zed", "Ada"]
        assert list(form.data["rulesetLive"]) == ["zed", "ada"]
        cards, live = form.slots["gameCharacterCards"], form.slots["rulesetLive"]
        assert isinstance(cards, Group) and isinstance(live, Group)
        assert list(cards.members) == ["Zed", "Ada"]
        assert list(live.members) == ["ada", "zed"]
        assert form.name == snapshot_hash(snapshot) == form_of(snapshot.to_json_dict()).name
