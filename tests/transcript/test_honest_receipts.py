"""Rebuild never contradicts a receipt the engine wrote (SPEC §6).

Any check `process()` rolls, on any fixture ruleset, with any of the options a
GM may write, must rebuild with no reported problem and to the same snapshot:
otherwise `gmtags transcript rebuild` would call honest chats forged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, Snapshot, load_ruleset, process
from gmtags.transcript.rebuild import replay_receipts
from tests.conftest import FIXTURES

RULESETS: dict[str, Ruleset] = {
    path.stem: load_ruleset(path)
    for path in sorted((FIXTURES / "rulesets").rglob("*.json"))
    if "invalid" not in path.parts
}
NAMES = ["Ward", "Brawl", "Stealth", "Spot Hidden", "Hunt", "Finesse", "Fight", "Notice",
         "Coordination", "Climb", "Strength", "Sinew", "Warmth", "Skill", "Open Locks"]  # fmt: skip
OPTIONS = ['dc="2"', 'difficulty="Hard"', 'bonus="+1"', 'bonus="-1"', 'dark="2"',
           'mode="advantage"', 'spend="resolve:1"', 'apply="Heavy Hitter"', 'threshold="8"',
           'explode="8"', 'reroll="careful"', 'upgrade="1"', 'setback="1"']  # fmt: skip


def strongest(ruleset: Ruleset) -> Snapshot:
    """One character with every plain ability at its maximum."""
    scores = {a.id: a.max for a in ruleset.sheet.abilities if a.value is None}
    return Snapshot.model_validate({"gameCharacterCards": {"Ada": {"abilities": scores}}})


class TestHonestReceipts:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        name=st.sampled_from(sorted(RULESETS)),
        check=st.sampled_from(NAMES),
        options=st.lists(st.sampled_from(OPTIONS), max_size=3, unique=True),
        seed=st.integers(0, 2**31),
    )
    def test_rebuild_agrees_with_process(
        self, name: str, check: str, options: list[str], seed: int
    ) -> None:
        """A receipt process() wrote rebuilds without a problem, to the same snapshot."""
        ruleset = RULESETS[name]
        start = strongest(ruleset)
        text = f'[skill_check: skill="{check}" {" ".join(options)}]'
        result = process(text, ruleset, start, seed=seed)
        after, problems = replay_receipts(result.text, ruleset, start)
        assert problems == []
        assert after == result.snapshot
