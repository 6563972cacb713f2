"""gmtags/transcript/reprocess.py: re-rolling every assistant message and swipe (SPEC §6)."""

from __future__ import annotations

from gmtags import Ruleset, Snapshot
from gmtags.transcript import Chat, read_chat, reprocess
from gmtags.transcript.chat import Line
from gmtags.transcript.jsontext import _members
from gmtags.transcript.layout import read_history
from gmtags.transcript.seeds import derive_seed
from tests.transcript.conftest import GROUP, PLAIN

OWNED = {"mes", "swipes", "extra", "swipe_info"}


def members(text: str) -> dict[str, str]:
    """Each top-level member's value exactly as written."""
    return {key: text[start:end] for key, start, end in _members(text, 0)}


def assert_unknown_fields_kept(before: Line, after: Line) -> None:
    """Every field gmtags does not own, at any level it writes into, is byte for byte the same."""
    old, new = members(before.text), members(after.text)
    assert [key for key in new if key in old] == list(old)
    for key, raw in old.items():
        if key not in OWNED:
            assert new[key] == raw, key
    for key in ("extra",):
        if key in old:
            kept = {k: v for k, v in members(old[key]).items() if k != "gmtags"}
            assert {k: v for k, v in members(new[key]).items() if k != "gmtags"} == kept
    for index, entry in enumerate(before.data.get("swipe_info") or []):
        new_entry = after.data["swipe_info"][index]
        assert {k: v for k, v in new_entry.items() if k != "extra"} == {
            k: v for k, v in entry.items() if k != "extra"
        }
        assert {k: v for k, v in new_entry["extra"].items() if k != "gmtags"} == entry["extra"]


class TestReprocess:
    def test_twice_gives_identical_files(
        self, heist: Chat, crows: Ruleset, start: Snapshot
    ) -> None:
        """SPEC §6: seeds are derived, so two runs write the same bytes."""
        assert (
            reprocess(heist, crows, start).chat.dumps()
            == reprocess(heist, crows, start).chat.dumps()
        )

    def test_reprocessing_its_own_output_changes_nothing(
        self, heist_done: Chat, crows: Ruleset
    ) -> None:
        """A reprocessed chat reprocessed again (start read from the chat) is the same file."""
        assert reprocess(heist_done, crows).chat.dumps() == heist_done.dumps()

    def test_unknown_fields_survive_byte_for_byte(self, heist: Chat, heist_done: Chat) -> None:
        """Changed messages keep every unknown field's text; other lines are untouched."""
        assistants = set(heist.assistant_indexes())
        for index, (before, after) in enumerate(
            zip(heist.messages, heist_done.messages, strict=True)
        ):
            if index in assistants:
                assert_unknown_fields_kept(before, after)
            else:
                assert after.text == before.text
        assert heist_done.dumps().split("\n")[7] == ""  # the blank line stays
        old_meta = members(members(heist.header.text)["chat_metadata"])  # type: ignore[union-attr]
        new_meta = members(members(heist_done.header.text)["chat_metadata"])  # type: ignore[union-attr]
        assert {k: v for k, v in new_meta.items() if k != "gmtags"} == old_meta
        assert '"weights":[1e3,0.5,-0]' in heist_done.header.text  # type: ignore[union-attr]

    def test_system_and_narrator_messages_are_not_rolled(self, heist_done: Chat) -> None:
        """SPEC §6: narrator and system notes keep their tags unprocessed."""
        assert 'tick="3"]]' in heist_done.messages[3].data["mes"]
        assert "result=" not in heist_done.messages[8].data["mes"]
        assert "result=" not in heist_done.messages[4].data["mes"]

    def test_every_swipe_gets_receipts_and_mes_follows_the_current(self, heist_done: Chat) -> None:
        """Each swipe is rolled; `mes` is the current swipe's receipts."""
        data = heist_done.messages[2].data
        assert all('result="' in swipe for swipe in data["swipes"])
        assert data["mes"] == data["swipes"][data["swipe_id"]]

    def test_swipes_start_from_the_same_snapshot(self, heist_done: Chat) -> None:
        """All swipes of a message start from the state after the previous current swipe."""
        history = read_history(heist_done)
        record = history.record(2)
        assert len({swipe.before for swipe in record.swipes if swipe}) == 1
        assert history.before(2) == history.after(0)
        assert history.before(5) == history.after(2, 1)

    def test_seeds_come_from_chat_message_and_swipe(self, heist_done: Chat) -> None:
        """Each swipe records the seed derived from (chat id, message, swipe)."""
        record = read_history(heist_done).record(2)
        assert [s.seed for s in record.swipes if s] == [
            derive_seed("crows-heist-0001", 2, k) for k in range(3)
        ]

    def test_clocks_party_and_live_values_follow_the_current_swipes(self, heist_done: Chat) -> None:
        """The final state has the clocks, party sheet and live values of the chosen swipes."""
        state = read_history(heist_done).current()
        assert state.ruleset_clocks == ()  # "Alarm raised" was cleared in the last message
        assert state.game_party_sheet is not None
        assert state.game_party_sheet.fields["heat"] == 2
        assert state.ruleset_live["$party"].pools == {"coin": 5}
        assert state.ruleset_live["vex"].tracks == {"stress": 2, "trauma": 1}
        assert state.ruleset_live["nim"].tracks == {"stress": 1}

    def test_metadata_holds_the_current_state(self, heist_done: Chat) -> None:
        """chat_metadata.gmtags has the current snapshot in full and by name."""
        stored = heist_done.metadata["gmtags"]
        history = read_history(heist_done)
        assert stored["state"] == history.current().to_json_dict()
        assert stored["current"] == history.current_name()
        assert set(stored["snapshots"]) == history.referenced()

    def test_snapshots_are_stored_once(self, heist_done: Chat) -> None:
        """Equal snapshots share one entry: fewer entries than before/after pairs."""
        history = read_history(heist_done)
        pairs = sum(len(r.swipes) * 2 for r in history.messages.values())
        assert len(heist_done.metadata["gmtags"]["snapshots"]) < pairs

    def test_group_chat_with_several_characters(self, crows: Ruleset, start: Snapshot) -> None:
        """Messages from several characters are all assistant messages and all rolled."""
        done = reprocess(read_chat(GROUP), crows, start)
        assert done.messages == 3
        assert done.swipes == 4
        state = done.history.current()
        assert state.ruleset_clocks[0].filled == 5
        assert state.ruleset_live["nim"].tracks == {"stress": 3}

    def test_plain_jsonl_gets_receipts_only(self, crows: Ruleset, start: Snapshot) -> None:
        """A role/content chat gets receipts in `content` and no stored snapshots."""
        chat = read_chat(PLAIN)
        done = reprocess(chat, crows, start).chat
        assert 'now="2/4"' in done.messages[4].data["content"]
        assert done.messages[0].text == chat.messages[0].text
        assert '"meta":{"t":1.0}' in done.messages[2].text
        assert "gmtags" not in done.dumps()
