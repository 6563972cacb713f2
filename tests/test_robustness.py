"""No tag a model can write makes the engine fail (SPEC §1: process never raises).

Random `[skill_check:]`, `[sheet:]` and `[clock:]` tags with attribute names the
engine reads and values of every awkward kind, on rulesets of each resolution
kind with characters, wounds, pools, states and a party: every tag resolves or
refuses, never through the handler-bug path (`reason="internal-error"`), and a
refused command leaves the state as it was.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Snapshot, load_ruleset, process
from tests.conftest import FIXTURES, REFERENCE_RULESETS

RULESETS = {
    "gravewatch": load_ruleset(REFERENCE_RULESETS / "gravewatch.json"),
    "ember": load_ruleset(REFERENCE_RULESETS / "ember-roads.json"),
    "5e": load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json"),
    "five": load_ruleset(FIXTURES / "rulesets" / "sheets" / "five-torches.json"),
    "ashfall": load_ruleset(FIXTURES / "rulesets" / "sheets" / "ashfall.json"),
    "crows": load_ruleset(FIXTURES / "rulesets" / "sheets" / "crows.json"),
    "coc": load_ruleset(FIXTURES / "rulesets" / "checks" / "coc.json"),
    "fate": load_ruleset(FIXTURES / "rulesets" / "checks" / "fate.json"),
    "rolemaster": load_ruleset(FIXTURES / "rulesets" / "checks" / "rolemaster.json"),
    "trophy": load_ruleset(FIXTURES / "rulesets" / "checks" / "trophy-light.json"),
}
STATE = Snapshot.model_validate(
    {
        "gameCharacterCards": {
            "Bram": {"abilities": {"sinew": 3, "dex": 14, "hunt": 2}, "fields": {"level": 3}},
            "Juno": {"skills": {"ward": "rating_1"}},
        },
        "rulesetLive": {"Bram": {"marks": {"harm": ["tear"]}, "pools": {"resolve": 1}}},
        "rulesetClocks": [{"name": "Alarm", "size": 6, "filled": 5}],
    }
)

KEYS = [
    "skill", "save", "ability", "who", "dc", "difficulty", "with", "bonus", "mode", "threshold",
    "explode", "double", "reroll", "spend", "use", "apply", "dark", "upgrade", "setback",
    "upgradeOwn", "op", "pool", "amount", "track", "kind", "box", "to", "by", "condition",
    "state", "value", "field", "rest", "name", "spell", "sheet", "size", "tick",
]  # fmt: skip
WORDS = [
    "", " ", "0", "1", "-1", "+2", "999999999", "-999999999", "1.5", "x", "Bram", "bram",
    "party", "Juno", "Nobody", "Ward", "Harm", "harm", "knock", "tear", "Resolve", "resolve",
    "resolve:1", "resolve:3", "Light", "Out", "lit", "Stance", "advance", "spend", "restore",
    "damage", "temp", "track", "condition", "state", "note", "rest", "use", "cast", "heal",
    "Catch your breath", "max", "min", "default", "Sinew", "Hard", "Grim", "advantage", "on",
    "off", "Alarm", "é", "🎲", "a  b", "careful", "coin", "vault", "level",
]  # fmt: skip

TAG = st.builds(
    lambda name, pairs: f"[{name}: " + " ".join(f'{k}="{v}"' for k, v in pairs) + "]",
    st.sampled_from(["skill_check", "sheet", "clock"]),
    st.lists(
        st.tuples(st.sampled_from(KEYS), st.sampled_from(WORDS)),
        max_size=6,
        unique_by=lambda pair: pair[0].lower(),
    ),
)


class TestRobustness:
    @pytest.mark.parametrize("name", sorted(RULESETS))
    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tags=st.lists(TAG, min_size=1, max_size=6), seed=st.integers(0, 2**31))
    def test_every_tag_resolves_or_refuses(self, name: str, tags: list[str], seed: int) -> None:
        """Any mix of tags resolves or refuses cleanly; a lone refused tag changes nothing."""
        ruleset = RULESETS[name]
        result = process("\n".join(tags), ruleset, STATE, seed=seed)
        assert all(r.reason != "internal-error" for r in result.receipts), [
            r.render() for r in result.receipts if r.reason == "internal-error"
        ]
        json.loads(result.snapshot.to_json())
        single = process(tags[0], ruleset, STATE, seed=seed)
        if single.receipts[0].result == "refused":
            assert single.snapshot == STATE
