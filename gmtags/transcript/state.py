"""`state`: the snapshot after any message and swipe of a saved chat (SPEC §6).

Read from the history the chat stores (`gmtags.transcript.layout`); nothing
is rolled and no ruleset is needed. SPEC §6: message N is the 0-based line of
the chat, metadata excluded; the default is the last message and its current
swipe. The state after a message that is not an assistant message is the
state after the last assistant message before it.
"""

from __future__ import annotations

from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import Chat
from gmtags.transcript.layout import read_history


def state(chat: Chat, message: int | None = None, swipe: int | None = None) -> Snapshot:
    """The snapshot after `message`'s `swipe`; `HistoryError` when it is not stored."""
    return read_history(chat).state(message, swipe)
