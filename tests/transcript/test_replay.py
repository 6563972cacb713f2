"""gmtags/transcript/replay.py: regenerate, continue, select a swipe, delete, edit (SPEC §6)."""

from __future__ import annotations

import pytest

from gmtags import Ruleset, Snapshot
from gmtags.history.records import HistoryError
from gmtags.transcript import Chat, named, rebuild, reprocess, state
from gmtags.transcript.replay import (
    continue_from,
    delete_messages,
    edit_message,
    regenerate,
    select_swipe,
)
from tests.conftest import count_snapshot_reads


def summary(snapshot: Snapshot) -> tuple[object, ...]:
    """Clocks, party fields, party pools and stress tracks of a snapshot."""
    live = snapshot.ruleset_live
    party = snapshot.game_party_sheet
    return (
        [(c.name, c.filled, c.size) for c in snapshot.ruleset_clocks],
        dict(party.fields) if party else {},
        dict(live["$party"].pools) if "$party" in live else {},
        {name: dict(entry.tracks) for name, entry in live.items() if name != "$party"},
    )


BASE_PARTY = {"vault": 8, "lair": "Bell tower"}


class TestRegenerate:
    def test_starts_from_the_snapshot_before(self, heist_done: Chat) -> None:
        """002: regenerating message 5 starts from the state after message 2's current swipe."""
        assert summary(regenerate(heist_done, 5)) == (
            [("Alarm raised", 1, 4)],
            BASE_PARTY,
            {"coin": 2},
            {"vex": {"stress": 5}},
        )

    def test_default_is_the_last_assistant_message(self, heist_done: Chat) -> None:
        """Without a message, the last assistant message is regenerated."""
        assert regenerate(heist_done) == continue_from(heist_done, 5)


class TestContinue:
    def test_starts_from_the_current_swipe(self, heist_done: Chat) -> None:
        """002: continue starts from the state after the current swipe."""
        assert summary(continue_from(heist_done, 5)) == (
            [("Alarm raised", 2, 4)],
            {**BASE_PARTY, "heat": 2},
            {"coin": 5},
            {"vex": {"stress": 5}, "nim": {"stress": 1}},
        )


class TestSelectSwipe:
    def test_restores_that_swipes_snapshot(self, heist_done: Chat) -> None:
        """Selecting swipe 1 of the (new) last message restores its clocks and party coin."""
        chat, _ = delete_messages(heist_done, {6, 7, 8})
        chat, after = select_swipe(chat, 5, 1)
        assert summary(after) == (
            [("Alarm raised", 3, 4)],
            BASE_PARTY,
            {"coin": 1},
            {"vex": {"stress": 5}},
        )
        data = chat.messages[5].data
        assert data["swipe_id"] == 1
        assert data["mes"] == data["swipes"][1]
        assert data["extra"]["gmtags"] == data["swipe_info"][1]["extra"]["gmtags"]
        assert state(chat) == after
        assert chat.metadata["gmtags"]["state"] == after.to_json_dict()

    def test_and_back(self, heist_done: Chat) -> None:
        """Selecting the first swipe again restores the first swipe's state."""
        chat, _ = delete_messages(heist_done, {6, 7, 8})
        chat, _ = select_swipe(chat, 5, 1)
        chat, after = select_swipe(chat, 5, 0)
        assert after == continue_from(heist_done, 5)

    def test_reads_only_the_snapshot_it_restores(
        self, heist_done: Chat, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Issue 16: the metadata is written again from the stored entries as they are, so the
        one snapshot validated is the one given back, and the file is the same bytes as when
        every entry is read first."""
        chat, _ = delete_messages(heist_done, {6, 7, 8})
        monkeypatch.setattr(named, "hash_json", lambda data: "")  # every entry read
        read_all, after = select_swipe(chat, 5, 1)
        monkeypatch.undo()
        validated = count_snapshot_reads(monkeypatch)
        unread, unread_after = select_swipe(chat, 5, 1)
        assert len(validated) == 1 and unread_after == after
        assert len(chat.metadata["gmtags"]["snapshots"]) > 2
        assert unread.dumps() == read_all.dumps()

    def test_only_the_last_assistant_message(self, heist_done: Chat) -> None:
        """As in SillyTavern, only the last assistant message can be swiped."""
        with pytest.raises(ValueError, match="last assistant"):
            select_swipe(heist_done, 2, 0)


class TestDelete:
    def test_restores_the_new_last_message(self, heist_done: Chat) -> None:
        """Deleting messages 5.. restores the state after message 2's current swipe."""
        chat, after = delete_messages(heist_done, range(5, 9))
        assert after == regenerate(heist_done, 5)
        assert len(chat.messages) == 5
        assert state(chat) == after

    def test_deleting_everything_restores_the_start(
        self, heist_done: Chat, start: Snapshot
    ) -> None:
        """With no assistant message left, the state is the chat's start."""
        _, after = delete_messages(heist_done, range(9))
        assert after == start


class TestEdit:
    def test_reprocesses_from_the_edited_message(self, heist_done: Chat, crows: Ruleset) -> None:
        """Editing message 5 re-rolls it and every later assistant message."""
        text = 'Quiet night. [clock: name="Alarm raised" tick="3"]'
        chat, after = edit_message(heist_done, 5, text, crows)
        assert summary(state(chat, 5)) == (
            [("Alarm raised", 4, 4)],
            BASE_PARTY,
            {"coin": 2},
            {"vex": {"stress": 5}},
        )
        assert state(chat, 2, 2) == state(heist_done, 2, 2)  # earlier swipes untouched
        assert after.ruleset_clocks == ()
        assert 'now=\\"4/4\\"' in chat.messages[5].text
        assert rebuild(chat, crows).contradictions == ()

    def test_matches_a_full_reprocess(self, heist_done: Chat, crows: Ruleset) -> None:
        """An edit gives the same file as editing and reprocessing the whole chat."""
        chat, _ = edit_message(heist_done, 7, "Nothing happens.", crows)
        assert reprocess(chat, crows).chat.dumps() == chat.dumps()

    def test_reads_only_the_snapshot_it_goes_on_from(
        self, heist_done: Chat, crows: Ruleset, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Issue 16: the messages before the edit keep their snapshots unread; the ones read
        are the start and the state the edited message starts from, and the file is the
        same bytes as when every entry is read first."""
        monkeypatch.setattr(named, "hash_json", lambda data: "")  # every entry read
        read_all, _ = edit_message(heist_done, 7, "Nothing happens.", crows)
        monkeypatch.undo()
        validated = count_snapshot_reads(monkeypatch)
        unread, _ = edit_message(heist_done, 7, "Nothing happens.", crows)
        assert unread.dumps() == read_all.dumps()
        assert len(validated) == 2 < len(heist_done.metadata["gmtags"]["snapshots"])

    def test_a_missing_snapshot_before_the_edit_is_an_error(
        self, heist_done: Chat, crows: Ruleset
    ) -> None:
        """A record before the edit naming a snapshot the chat does not store is refused, as
        before, with the snapshot named."""
        stored = heist_done.metadata["gmtags"]["snapshots"]
        named_first = heist_done.messages[2].data["extra"]["gmtags"]["after"]
        damaged = {**stored, named_first: {"rulesetClocks": "not a list"}}
        header = heist_done.header
        assert header is not None
        metadata = {**heist_done.metadata, "gmtags": {**heist_done.metadata["gmtags"]}}
        metadata["gmtags"]["snapshots"] = damaged
        chat = heist_done.with_header(header.with_value(("chat_metadata",), metadata))
        with pytest.raises(HistoryError, match=named_first[:12]):
            edit_message(chat, 7, "Nothing happens.", crows)
