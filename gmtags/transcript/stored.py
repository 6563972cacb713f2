"""A saved chat read against the history store the proxy keeps (SPEC §7.1).

A chat played through `gmtags serve` has its snapshots in the proxy's store,
not in the file. `gmtags transcript state|rebuild CHAT.jsonl --db H.sqlite
[--chat ID]` find them by matching the file's messages to the stored replies
by fingerprint, exactly as the proxy places a request
(`gmtags.history.anchor`): the file up to a message is read as a request
ending there.

- The chat is `--chat` when given, else the chat holding the file's last
  matching assistant message.
- The state after message N is the snapshot after the reply its anchor (the
  last matching assistant message at or before N) matched. An assistant
  message after the anchor that holds no receipts changes nothing, so it is
  passed over; one that holds receipts but matches no stored reply (edited
  receipts, a reply made elsewhere) leaves the state unknown, and the error
  names it. With no anchor, the state is the chat's start.

`reprocess --db` saves a reprocessed chat's replies as nodes (each swipe a
child of the previous message's current swipe), so its states are found the
same way; saving the same chat twice adds nothing.
"""

from __future__ import annotations

from gmtags.history.anchor import Said, find_anchor
from gmtags.history.excerpt import excerpt
from gmtags.history.fingerprint import fingerprint
from gmtags.history.records import History, HistoryError
from gmtags.history.store import HistoryStore
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import Chat, is_assistant, swipe_texts, text_key
from gmtags.transcript.layout import assistant_swipes


def _role(chat: Chat, index: int) -> str:
    data = chat.messages[index].data
    if is_assistant(chat.kind, data):
        return "assistant"
    role = data.get("role")
    if chat.kind == "plain" and isinstance(role, str):
        return role
    return "system" if data.get("is_system") is True else "user"


def said_of(chat: Chat, upto: int | None = None, swipe: int | None = None) -> list[Said]:
    """The chat's messages up to `upto` (default: all) as a request would send them: each
    assistant message's current swipe, or `swipe` for message `upto`."""
    last = len(chat.messages) - 1 if upto is None else upto
    out: list[Said] = []
    for index in range(last + 1):
        data = chat.messages[index].data
        role = _role(chat, index)
        if role == "assistant":
            texts, current = assistant_swipes(chat, index)
            chosen = swipe if index == last and swipe is not None else current
            if not 0 <= chosen < len(texts):
                raise HistoryError(f"message {index} has no swipe {chosen}")
            text = texts[chosen]
        else:
            if index == last and swipe not in (None, 0):
                raise HistoryError(f"message {index} is not an assistant message: it has no swipes")
            value = data.get(text_key(chat.kind, data))
            text = value if isinstance(value, str) else ""
        out.append(Said(role, text))
    return out


def stored_chat(chat: Chat, store: HistoryStore, named: str | None, where: str) -> str:
    """The store's chat this file belongs to: `named`, else the one its last matching
    assistant message is in."""
    if named is not None:
        if not store.has_chat(named):
            raise HistoryError(f"chat {named!r} is not in {where}")
        return named
    anchor = find_anchor(said_of(chat), store, None)
    if anchor is None:
        raise HistoryError(
            f"no assistant message matches a reply stored in {where}: name the chat with --chat"
        )
    return anchor.node.chat_id


def stored_state(
    chat: Chat,
    store: HistoryStore,
    message: int | None = None,
    swipe: int | None = None,
    *,
    named: str | None = None,
    where: str = "the store",
) -> Snapshot:
    """The snapshot after `message`'s `swipe` (default: the last message, its current swipe),
    from the replies stored for this chat."""
    if not chat.messages:
        return store.start(stored_chat(chat, store, named, where))
    index = len(chat.messages) - 1 if message is None else message
    if not 0 <= index < len(chat.messages):
        raise HistoryError(f"message {index} does not exist ({len(chat.messages)} messages)")
    chat_id = stored_chat(chat, store, named, where)
    messages = said_of(chat, index, swipe)
    anchor = find_anchor(messages, store, chat_id)
    since = 0 if anchor is None else anchor.message + 1
    for later in range(index, since - 1, -1):
        said = messages[later]
        if said.role == "assistant" and said.fingerprint.receipts:
            which = f"message {later}" + (f", swipe {swipe}" if later == index and swipe else "")
            raise HistoryError(
                f"{which} holds receipts that match no reply of chat {chat_id!r} in {where}:"
                " the state after it is not known"
            )
    if anchor is None:
        return store.start(chat_id)
    return store.snapshot(anchor.node.after)


def save_nodes(store: HistoryStore, chat: Chat, history: History) -> None:
    """Store a reprocessed chat's replies as nodes of chat `history.chat_id`."""
    store.ensure_chat(history.chat_id, history.snapshot(history.start))
    parent: int | None = None
    for index in chat.assistant_indexes():
        record = history.record(index)
        texts = swipe_texts(chat.kind, chat.messages[index].data)
        chosen: int | None = None
        for number, swipe in enumerate(record.swipes):
            if swipe is None:
                continue
            node = store.add_node(
                history.chat_id,
                parent,
                history.snapshot(swipe.before),
                history.snapshot(swipe.after),
                fingerprint(texts[number]),
                swipe.seed,
                current=False,
                excerpt=excerpt(texts[number]),
            )
            if number == record.current:
                chosen = node.id
        parent = chosen
    store.set_current(history.chat_id, parent)
