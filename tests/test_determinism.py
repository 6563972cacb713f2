"""SPEC §1: the same text, ruleset, snapshot and seed give byte-identical output, dice included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gmtags import Snapshot, load_ruleset, process
from gmtags.transcript import reprocess
from gmtags.transcript.replay import edit_message
from tests.transcript.conftest import CROWS, HEIST

CHECKS = Path(__file__).resolve().parent.parent / "fixtures" / "rulesets" / "checks"
ROLLS = {
    "two-d6.json": '[skill_check: skill="Climb" dc="8"] [skill_check: ability="Grit" dc="7"]',
    "coc.json": '[skill_check: skill="Spot Hidden"] [skill_check: skill="Climb" bonus="1"]',
    "exwod.json": '[skill_check: skill="Ward" dc="2"] [skill_check: skill="Listen" dc="1"]',
    "rooks.json": '[skill_check: skill="Hunt" dc="6"] [skill_check: skill="Finesse" dc="4"]',
    "genesys.json": '[skill_check: skill="Athletics" dc="2"] [skill_check: skill="Stealth"]',
}
RUN = """
import sys, json
from gmtags import load_ruleset, process, Snapshot
ruleset = load_ruleset(sys.argv[1])
print(json.dumps(process(sys.argv[2], ruleset, Snapshot(), seed=int(sys.argv[3])).text))
"""


@pytest.mark.parametrize("file", sorted(ROLLS))
class TestDiceAreReproducible:
    def test_same_seed_same_dice_in_another_interpreter(self, file: str) -> None:
        """Another process (another hash salt) rolls the very same dice for the same seed."""
        ruleset = load_ruleset(CHECKS / file)
        here = process(ROLLS[file], ruleset, Snapshot(), seed=2026).text
        args = [sys.executable, "-c", RUN, str(CHECKS / file), ROLLS[file], "2026"]
        there = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        assert json.loads(there) == here
        assert 'rolls="' in here

    def test_other_seeds_roll_other_dice(self, file: str) -> None:
        """The seed is what the dice follow: twenty seeds do not all roll alike."""
        ruleset = load_ruleset(CHECKS / file)
        texts = {process(ROLLS[file], ruleset, Snapshot(), seed=seed).text for seed in range(20)}
        assert len(texts) > 1


class TestReplaySeeds:
    def test_reprocessing_a_chat_with_dice_twice_is_identical(self) -> None:
        """SPEC §6: seeds are derived from the chat, so re-rolling twice gives the same file."""
        from gmtags.transcript import read_chat

        ruleset = load_ruleset(CROWS)
        chat = read_chat(HEIST)
        once = reprocess(chat, ruleset).chat.dumps()
        assert 'rolls=\\"' in once  # JSON-escaped receipts of rolled checks
        assert reprocess(chat, ruleset).chat.dumps() == once

    def test_an_edit_re_rolls_later_messages_the_same_way_every_time(self) -> None:
        """Editing a message re-rolls the messages after it from their derived seeds: doing the
        same edit twice gives the same dice."""
        from gmtags.transcript import read_chat

        ruleset = load_ruleset(CROWS)
        done = reprocess(read_chat(HEIST), ruleset).chat
        first, state = edit_message(done, 1, "Vex tries the lock again.", ruleset)
        second, again = edit_message(done, 1, "Vex tries the lock again.", ruleset)
        assert first.dumps() == second.dumps() and state == again
