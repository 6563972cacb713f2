"""gmtags/transcript/rebuild.py: snapshots from the receipts already present (SPEC §6)."""

from __future__ import annotations

import json

from gmtags import Ruleset, Snapshot
from gmtags.transcript import Chat, read_chat, rebuild, reprocess
from gmtags.transcript.layout import read_history
from gmtags.transcript.rebuild import replay_receipts
from tests.transcript.conftest import GROUP, PLAIN


def forge(chat: Chat, message: int, old: str, new: str) -> Chat:
    """The chat with one receipt text edited in every swipe of `message` (and its `mes`)."""
    line = chat.messages[message]
    assert old in line.text
    edited = line.text.replace(old, new)
    return chat.with_message(message, type(line)(edited, json.loads(edited), line.number))


class TestRebuild:
    def test_round_trip_gives_the_same_snapshots(self, heist_done: Chat, crows: Ruleset) -> None:
        """reprocess → rebuild recomputes exactly the snapshots reprocess stored."""
        rebuilt = rebuild(heist_done, crows)
        assert rebuilt.contradictions == ()
        stored, again = read_history(heist_done), rebuilt.history
        for index, record in stored.messages.items():
            for swipe in range(len(record.swipes)):
                assert again.after(index, swipe) == stored.after(index, swipe)
            assert again.before(index) == stored.before(index)

    def test_round_trip_gives_the_same_file(self, heist_done: Chat, crows: Ruleset) -> None:
        """Rebuilding an honest reprocessed chat rewrites nothing (seeds are kept)."""
        assert rebuild(heist_done, crows).chat.dumps() == heist_done.dumps()

    def test_group_and_plain_chats_round_trip(self, crows: Ruleset, start: Snapshot) -> None:
        """Several characters and role/content JSONL rebuild to the reprocessed state."""
        for path in (GROUP, PLAIN):
            done = reprocess(read_chat(path), crows, start)
            rebuilt = rebuild(done.chat, crows, start)
            assert rebuilt.contradictions == ()
            assert rebuilt.history.current() == done.history.current()

    def test_forged_clock_now_is_reported(self, heist_done: Chat, crows: Ruleset) -> None:
        """A clock receipt whose `now` does not add up is named by message, swipe and tag."""
        forged = forge(
            heist_done,
            2,
            'tick=\\"1\\" result=\\"ok\\" now=\\"1/4\\"',
            'tick=\\"1\\" result=\\"ok\\" now=\\"3/4\\"',
        )
        found = rebuild(forged, crows).contradictions
        assert [(c.message, c.swipe, c.tag) for c in found] == [(2, 1, 3)]
        assert "now='3/4' but the rules give now='1/4'" in found[0].problem

    def test_forged_check_total_is_reported(self, heist_done: Chat, crows: Ruleset) -> None:
        """A check receipt whose total is not used + modifier is reported."""
        text = heist_done.messages[5].data["swipes"][1]
        total = text.split('total="')[1].split('"')[0]
        forged = forge(heist_done, 5, f'total=\\"{total}\\"', 'total=\\"6\\"')
        found = rebuild(forged, crows).contradictions
        assert {(c.message, c.tag) for c in found} == {(5, 1)}
        assert any("total 6 is not used" in c.problem for c in found)

    def test_face_of_seven_on_a_d6_is_reported(self, heist_done: Chat, crows: Ruleset) -> None:
        """A face no die of the receipt can show is reported."""
        text = heist_done.messages[2].data["swipes"][0]
        rolls = text.split('rolls="')[1].split('"')[0]
        forged = forge(heist_done, 2, f'rolls=\\"{rolls}\\"', f'rolls=\\"7|{rolls[2:]}\\"')
        problems = [c.problem for c in rebuild(forged, crows).contradictions]
        assert "face 7 cannot show on a d6" in problems

    def test_forged_sheet_result_is_reported(self, heist_done: Chat, crows: Ruleset) -> None:
        """A sheet receipt that claims ok where the rules refuse is reported."""
        forged = forge(
            heist_done,
            7,
            'by=\\"1\\" result=\\"ok\\" now=\\"Trauma 1\\"',
            'by=\\"1\\" result=\\"ok\\" now=\\"Trauma 3\\"',
        )
        found = rebuild(forged, crows).contradictions
        assert [(c.message, c.swipe, c.tag) for c in found] == [(7, 0, 2)]

    def test_rebuild_continues_with_what_the_rules_give(self, crows: Ruleset) -> None:
        """After a forged receipt the state is the rules' state, not the receipt's."""
        text = (
            '[clock: name="A" size="4" result="ok" now="0/4"] '
            '[clock: name="A" tick="2" result="ok" now="4/4"]'
        )
        state, problems = replay_receipts(text, crows, Snapshot())
        assert state.ruleset_clocks[0].filled == 2
        assert [tag for tag, _, _ in problems] == [2]

    def test_an_unprocessed_tag_is_not_a_receipt(self, crows: Ruleset) -> None:
        """A tag with no result= is reported and changes nothing."""
        state, problems = replay_receipts('[clock: name="A" size="4"]', crows, Snapshot())
        assert state == Snapshot()
        assert "not a receipt" in problems[0][2]

    def test_trusted_refusals_change_nothing(self, crows: Ruleset) -> None:
        """A malformed refusal is trusted and leaves the state as it was."""
        text = '[clock: name="A" size="4" raw="x" result="refused" reason="malformed"]'
        assert replay_receipts(text, crows, Snapshot()) == (Snapshot(), [])

    def test_rebuild_rolls_nothing(self, heist_done: Chat, crows: Ruleset) -> None:
        """Check receipts keep their faces: rebuild never re-rolls them."""
        assert (
            rebuild(heist_done, crows).chat.messages[2].data["swipes"]
            == heist_done.messages[2].data["swipes"]
        )


class TestPaidChecks:
    """A check that paid (spend=, charms) changed the state; rebuild pays again."""

    def gravewatch(self) -> tuple[Ruleset, Snapshot]:
        from gmtags import load_ruleset
        from tests.conftest import REFERENCE_RULESETS

        ruleset = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        start = Snapshot.model_validate(
            {"gameCharacterCards": {"Bram": {"abilities": {"warmth": 2}}}}
        )
        return ruleset, start

    def test_spend_is_paid_again(self) -> None:
        """The state after a paying check equals the state process() left."""
        from gmtags import process

        ruleset, start = self.gravewatch()
        result = process(
            '[skill_check: skill="Warmth" dc="1" spend="resolve:1"]', ruleset, start, seed=3
        )
        assert result.receipts[0].attr("spend") == "resolve:1"
        state, problems = replay_receipts(result.text, ruleset, start)
        assert problems == [] and state == result.snapshot != start

    def test_unpayable_spend_is_reported(self) -> None:
        """A receipt claiming a payment the pool cannot cover is reported; nothing is paid."""
        ruleset, start = self.gravewatch()
        drained = start.model_copy(
            update={
                "ruleset_live": Snapshot.model_validate(
                    {"rulesetLive": {"Bram": {"pools": {"resolve": 0}}}}
                ).ruleset_live
            }
        )
        text = (
            '[skill_check: skill="Warmth" dc="1" rolls="8|8|8" used="3" modifier="0" total="3" '
            'result="success" resolution="successes" dice="3d10" threshold="7" pool="2" '
            'who="Bram" spend="resolve:1" auto="1"]'
        )
        state, problems = replay_receipts(text, ruleset, drained)
        assert state == drained
        assert any("cannot be paid: insufficient" in problem for _, _, problem in problems)

    def test_contextual_costs_are_paid_again(self) -> None:
        """A check whose apply= marked a track (Rook's Gambit) rebuilds to the same state."""
        from gmtags import load_ruleset, process
        from tests.conftest import FIXTURES

        ruleset = load_ruleset(FIXTURES / "rulesets" / "checks" / "rooks.json")
        start = Snapshot.model_validate(
            {
                "gameCharacterCards": {
                    "Cat": {
                        "skills": {"hunt": "rating_3", "finesse": "rating_1"},
                        "lists": {"special": [{"name": "Rook’s Gambit", "skill": ""}]},
                    }
                },
                "rulesetLive": {"cat": {"tracks": {"stress": 1}}},
            }
        )
        text = '[skill_check: skill="Finesse" difficulty="Full" apply="Rook\'s Gambit"]'
        result = process(text, ruleset, start, seed=4)
        assert result.receipts[0].attr("from") == "Rook’s Gambit"
        state, problems = replay_receipts(result.text, ruleset, start)
        assert problems == [] and state == result.snapshot != start
