"""Replay: which snapshot a chat goes on from after the user acts on it (SPEC §6).

002, "Relojes de progreso…": regenerate starts from the previous snapshot,
continue from the current one, and selecting or deleting swipes or messages
restores the clocks with the rest of that snapshot; "Ficha de grupo…": the
party sheet's permanent and live values come back the same way. Each
operation takes a SillyTavern chat that stores its history
(`gmtags.transcript.layout`) and returns the snapshot to go on from (and the
chat as it now is, for the operations that change it).

Decisions where SPEC §6 is silent:
- A swipe can be selected only on the last assistant message, as in
  SillyTavern (swiping an earlier message would leave the messages after it
  rolled from a state that no longer holds); selecting one rewrites
  `swipe_id`, `mes` and `extra.gmtags` as SillyTavern does.
- Deleting messages keeps the records of the messages that remain as they
  are; the state is the one after the new last assistant message (the
  chat's start when none is left).
- Editing a message re-rolls every assistant message from it on; the
  messages before it keep their text and snapshots.
"""

from __future__ import annotations

from collections.abc import Iterable

from gmtags.history.records import History
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import Chat, has_swipes, is_assistant, swipe_texts, text_key
from gmtags.transcript.layout import read_history, write_history, write_texts
from gmtags.transcript.reprocess import reprocess


def _message(history: History, message: int | None) -> int:
    index = history.last_assistant() if message is None else message
    if index is None:
        raise ValueError("the chat has no assistant message")
    return index


def regenerate(chat: Chat, message: int | None = None) -> Snapshot:
    """The snapshot a regenerate of `message` (default: the last assistant message) starts from."""
    history = read_history(chat)
    return history.before(_message(history, message))


def continue_from(chat: Chat, message: int | None = None) -> Snapshot:
    """The snapshot a continue of `message` starts from: the state after its current swipe."""
    history = read_history(chat)
    return history.after(_message(history, message))


def select_swipe(chat: Chat, message: int, swipe: int) -> tuple[Chat, Snapshot]:
    """Make `swipe` the current swipe of the last assistant message; the state after it."""
    history = read_history(chat)
    if message != history.last_assistant():
        raise ValueError(f"message {message} is not the last assistant message")
    data = chat.messages[message].data
    if not has_swipes(data) and swipe != 0:
        raise ValueError(f"message {message} has no swipes")
    history = history.with_current(message, swipe)
    line = chat.messages[message]
    if has_swipes(data):
        line = line.with_value(("swipe_id",), swipe)
        line = write_texts(chat.kind, line, swipe_texts(chat.kind, data))
    chat = write_history(chat.with_message(message, line), history)
    return chat, history.after(message, swipe)


def delete_messages(chat: Chat, indexes: Iterable[int]) -> tuple[Chat, Snapshot]:
    """Delete messages; the state after the new last message (SPEC §6)."""
    doomed = set(indexes)
    if any(not 0 <= index < len(chat.messages) for index in doomed):
        raise ValueError("a message to delete does not exist")
    history = read_history(chat).without(doomed)
    chat = write_history(chat.without_messages(doomed), history)
    return chat, history.current()


def edit_message(
    chat: Chat,
    message: int,
    text: str,
    ruleset: Ruleset,
    *,
    swipe: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Chat, Snapshot]:
    """Replace a message's text (an assistant message's `swipe`, default its current one)
    and re-roll every assistant message from it on; the state after the chat's last message.
    """
    if not 0 <= message < len(chat.messages):
        raise ValueError(f"message {message} does not exist")
    line = chat.messages[message]
    data = line.data
    if is_assistant(chat.kind, data):
        texts = swipe_texts(chat.kind, data)
        index = (read_history(chat).record(message).current) if swipe is None else swipe
        if not 0 <= index < len(texts):
            raise ValueError(f"message {message} has no swipe {index}")
        texts[index] = text
        line = write_texts(chat.kind, line, texts)
    elif swipe not in (None, 0):
        raise ValueError(f"message {message} is not an assistant message: it has no swipes")
    else:
        line = line.with_value((text_key(chat.kind, data),), text)
    done = reprocess(chat.with_message(message, line), ruleset, first=message, limits=limits)
    return done.chat, done.history.current()
