"""gmtags/transcript/state.py: the snapshot after any message and swipe (SPEC §6)."""

from __future__ import annotations

import pytest

from gmtags.history.records import HistoryError
from gmtags.transcript import Chat, read_chat, state
from tests.transcript.conftest import HEIST, PLAIN


class TestState:
    def test_default_is_the_last_message_current_swipe(self, heist_done: Chat) -> None:
        """Without arguments: the state after the chat's last message."""
        assert state(heist_done).ruleset_live["$party"].pools == {"coin": 5}

    def test_a_named_swipe(self, heist_done: Chat) -> None:
        """Swipe 2 of message 2 has its own clocks and party heat."""
        after = state(heist_done, 2, 2)
        assert [(c.name, c.filled) for c in after.ruleset_clocks] == [("Patrol", 3)]
        assert after.game_party_sheet is not None
        assert after.game_party_sheet.fields["heat"] == 1

    def test_a_user_message_gives_the_state_before_it(self, heist_done: Chat) -> None:
        """A user message's state is the one after the last assistant message before it."""
        assert state(heist_done, 4) == state(heist_done, 2)
        assert state(heist_done, 1) == state(heist_done, 0)

    def test_errors(self, heist_done: Chat) -> None:
        """Swipes of a user message, missing messages and unprocessed chats raise HistoryError."""
        with pytest.raises(HistoryError):
            state(heist_done, 1, 0)
        with pytest.raises(HistoryError):
            state(heist_done, 99)
        with pytest.raises(HistoryError):
            state(heist_done, 2, 5)
        with pytest.raises(HistoryError, match="reprocess"):
            state(read_chat(HEIST))
        with pytest.raises(HistoryError, match="plain"):
            state(read_chat(PLAIN))
