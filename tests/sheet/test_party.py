"""Tests for gmtags/sheet/party.py: the shared party sheet's fields and pools (002)."""

from __future__ import annotations

import json
from typing import Any

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.sheet.party import PartyValues
from tests.conftest import FIXTURES

CROWS: dict[str, Any] = json.loads((FIXTURES / "rulesets/sheets/crows.json").read_text())


def crows(**party: Any) -> Ruleset:
    """The crows fixture with some `party` keys replaced."""
    data = json.loads(json.dumps(CROWS))
    data["party"].update(party)
    return load_ruleset(data)


def party_of(rules: Ruleset, snapshot: dict[str, Any]) -> PartyValues:
    assert rules.party is not None
    return PartyValues(rules, rules.party, Snapshot.model_validate(snapshot))


CREW = {
    "gameCharacterCards": {
        "Vex": {"fields": {"coin_stash": 3}},
        "Nim": {"fields": {"coin_stash": 9}},
    }
}


class TestFields:
    def test_stored_or_default(self) -> None:
        """002: party fields are stored in gamePartySheet.fields; unset ones read their default."""
        party = party_of(crows(), {"gamePartySheet": {"fields": {"heat": 4}}})
        assert (party.field("heat"), party.field("vault"), party.field("lair")) == (4, 4, "")

    def test_count_from_members(self) -> None:
        """002, "Creación compartida…": `count` is how many characters there are, at each read."""
        assert party_of(crows(), CREW).field("size") == 2
        assert party_of(crows(), {}).field("size") == 0

    def test_stored_value_of_a_member_field_is_ignored(self) -> None:
        """A field read from the members is never the stored value."""
        party = party_of(crows(), {**CREW, "gamePartySheet": {"fields": {"size": 9}}})
        assert party.field("size") == 2

    def test_sum_from_members_is_clamped_to_the_field(self) -> None:
        """`sum` adds a character number field; the party field's range still holds."""
        rules = crows(fromMembers=[{"field": "rep", "sum": "coin_stash"}])
        rich = {
            "gameCharacterCards": {
                "Vex": {"fields": {"coin_stash": 10}},
                "Nim": {"fields": {"coin_stash": 30}},
            }
        }
        assert party_of(rules, rich).field("rep") == 12
        one = {"gameCharacterCards": {"Vex": {"fields": {"coin_stash": 3}}}}
        assert party_of(rules, one).field("rep") == 3


class TestPools:
    def test_max_from_a_field_and_empty_start(self) -> None:
        """002: the crew's coin reads its max from the vault field and starts empty."""
        (coin,) = party_of(crows(), {"gamePartySheet": {"fields": {"vault": 6}}}).pools()
        assert (coin.key, coin.max, coin.start) == ("coin", 6, 0)

    def test_max_from_members(self) -> None:
        """A pool whose max reads a member-count field follows the characters."""
        rules = crows(pools=[{"id": "coin", "label": "Coin", "max": {"field": "size"}}])
        assert [pool.max for pool in party_of(rules, CREW).pools()] == [2]
        assert party_of(rules, {}).pools() == ()

    def test_hidden_pool(self) -> None:
        """A party pool's hideWhen names a party field."""
        pool = {
            "id": "coin",
            "label": "Coin",
            "max": {"const": 3},
            "hideWhen": {"field": "heat", "in": [5, 6]},
        }
        rules = crows(pools=[pool])
        assert party_of(rules, {"gamePartySheet": {"fields": {"heat": 5}}}).pools() == ()
        assert len(party_of(rules, {"gamePartySheet": {"fields": {"heat": 4}}}).pools()) == 1

    def test_start_from(self) -> None:
        """A party pool may start from a party field (004 startFrom), clamped to its max."""
        pool = {"id": "coin", "label": "Coin", "max": {"const": 3}, "startFrom": {"field": "vault"}}
        (coin,) = party_of(crows(pools=[pool]), {}).pools()
        assert coin.start == 3
