"""Where gmtags keeps a chat's snapshot history inside a SillyTavern chat file (SPEC §6).

SillyTavern keeps `extra` per message and `swipe_info[k].extra` per swipe, and
when the user swipes it copies the chosen swipe's `swipe_info[k].extra` into
the message's `extra`. gmtags follows that, under one key it owns, `gmtags`:

- `swipe_info[k].extra.gmtags = {"seed", "before", "after"}`: swipe `k`'s
  seed and the names of its snapshots before and after;
- `extra.gmtags`: the same record for the current swipe (a message without
  `swipes` keeps only this one, as swipe 0);
- `chat_metadata.gmtags = {"version": 1, "chatId", "start", "current",
  "state", "snapshots"}`: the chat id the dice were rolled under (SPEC §7.1:
  read back first, so renaming the file does not change its dice), the name
  of the snapshot the chat starts from, the name of the current one, the
  current snapshot written out in full (SPEC §4 storage names) for a person
  or a front end to read, and every snapshot the records name, once each,
  keyed by its sha256 (`gmtags.history.snapshots`).

Decisions: when `swipe_info` is missing or does not line up with `swipes`, it
is written as a list as long as `swipes`, keeping the entries that were
objects and adding `{}` for the rest. A plain `{"role","content"}` chat has
no place for gmtags' data, so it keeps only its receipts; its history lives
in the SQLite store (`gmtags.history.store`) or is recomputed by `rebuild`.
Only values that change are written, so a second run leaves the file as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.state.snapshot import Snapshot
from gmtags.transcript.chat import (
    Chat,
    Kind,
    Line,
    current_swipe,
    has_swipes,
    is_assistant,
    swipe_texts,
    text_key,
)
from gmtags.transcript.jsontext import Edit
from gmtags.transcript.named import NamedSnapshots, StoredSnapshots, storage_form

NAMESPACE = "gmtags"
VERSION = 1


def _stored(chat: Chat) -> dict[str, Any] | None:
    data = chat.metadata.get(NAMESPACE)
    return data if isinstance(data, dict) else None


def _snapshots(stored: dict[str, Any]) -> NamedSnapshots:
    raw = stored.get("snapshots")
    return StoredSnapshots(raw) if isinstance(raw, dict) else NamedSnapshots()


def stored_start(chat: Chat) -> Snapshot | None:
    """The snapshot a previous run started this chat from, when one is stored (issue 16: the
    entry under its name alone is read)."""
    stored = _stored(chat)
    if stored is None or not isinstance(stored.get("start"), str):
        return None
    return _snapshots(stored).get(stored["start"])


def _message_record(data: dict[str, Any]) -> MessageRecord:
    extra = data.get("extra")
    own = SwipeRecord.from_json(extra.get(NAMESPACE)) if isinstance(extra, dict) else None
    if not has_swipes(data):
        return MessageRecord((own,), 0)
    current = current_swipe(data)
    info = data.get("swipe_info")
    records: list[SwipeRecord | None] = []
    for index in range(len(data["swipes"])):
        entry = info[index] if isinstance(info, list) and index < len(info) else None
        entry_extra = entry.get("extra") if isinstance(entry, dict) else None
        record = (
            SwipeRecord.from_json(entry_extra.get(NAMESPACE))
            if isinstance(entry_extra, dict)
            else None
        )
        if record is None and index == current:
            record = own
        records.append(record)
    return MessageRecord(tuple(records), current)


def read_history(chat: Chat) -> History:
    """The snapshot history stored in a SillyTavern chat; `HistoryError` when there is none."""
    stored = _stored(chat)
    if chat.kind == "plain":
        raise HistoryError("a plain role/content chat stores no snapshots: run `rebuild` on it")
    if stored is None or not isinstance(stored.get("start"), str):
        raise HistoryError(
            "this chat stores no gmtags snapshots: run `reprocess` first, or, for a chat played"
            " through `gmtags serve`, read the proxy's store with --db"
        )
    messages = {
        index: _message_record(chat.messages[index].data) for index in chat.assistant_indexes()
    }
    return History(chat.chat_id, stored["start"], len(chat.messages), messages, _snapshots(stored))


def _holds(line: Line, path: Sequence[str | int], value: Any) -> bool:
    """True when `line` already holds `value` (of the same type) at `path`."""
    node: Any = line.data
    for key in path:
        if isinstance(key, int):
            node = node[key] if isinstance(node, list) and 0 <= key < len(node) else None
        else:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            break
    return bool(node == value and type(node) is type(value))


def _set_all(line: Line, edits: Sequence[Edit]) -> Line:
    """`line` with every value of `edits` set that it does not already hold, in one pass.

    Only values that change are written (so a second run leaves the file as it
    is), and all of them in one edit of the line: issue 11, a message with
    thousands of swipes is written in time linear in its swipes.
    """
    return line.with_values(
        [(path, value) for path, value in edits if not _holds(line, path, value)]
    )


def _set(line: Line, path: Sequence[str | int], value: Any) -> Line:
    """`line` with the value at `path` set, or `line` itself when it already holds it."""
    return _set_all(line, [(path, value)])


def _text_edits(kind: Kind, data: dict[str, Any], texts: Sequence[str]) -> list[Edit]:
    """Where a message's swipe texts go: `swipes` and `mes` (the current one), else its text."""
    if has_swipes(data):
        return [(("swipes",), list(texts)), (("mes",), texts[current_swipe(data)])]
    return [((text_key(kind, data),), texts[0])]


def write_texts(kind: Kind, line: Line, texts: Sequence[str]) -> Line:
    """A message with its swipes' texts replaced; `mes` follows the current swipe."""
    return _set_all(line, _text_edits(kind, line.data, texts))


def _record_edits(line: Line, records: Sequence[SwipeRecord]) -> tuple[Line, list[Edit]]:
    """Where a SillyTavern message's per-swipe records go (see the module docstring), and the
    line they go into: its `swipe_info` first made as long as `swipes` when it is not."""
    data = line.data
    current = current_swipe(data)
    edits: list[Edit] = []
    if has_swipes(data):
        count = len(data["swipes"])
        info = data.get("swipe_info")
        aligned = (
            isinstance(info, list)
            and len(info) == count
            and all(isinstance(entry, dict) for entry in info)
        )
        if not aligned:
            old = info if isinstance(info, list) else []
            fresh = [
                old[i] if i < len(old) and isinstance(old[i], dict) else {} for i in range(count)
            ]
            line = line.with_value(("swipe_info",), fresh)
        edits.extend(
            (("swipe_info", index, "extra", NAMESPACE), record.to_json())
            for index, record in enumerate(records)
        )
    edits.append((("extra", NAMESPACE), records[current].to_json()))
    return line, edits


def write_records(line: Line, records: Sequence[SwipeRecord]) -> Line:
    """A SillyTavern message with its per-swipe records written (see the module docstring).

    A `swipe_info[k].extra` or `extra` that is not an object is replaced by one
    holding only the record (`gmtags.transcript.jsontext.splice_all` replaces a
    value that is not an object where a member is set inside it).
    """
    line, edits = _record_edits(line, records)
    return _set_all(line, edits)


def write_message(
    kind: Kind, line: Line, texts: Sequence[str], records: Sequence[SwipeRecord]
) -> Line:
    """A message with its swipes' texts and, in a SillyTavern chat, its per-swipe records
    written: `write_records(write_texts(kind, line, texts), records)` in one edit of the line
    (issue 16)."""
    if kind == "plain":
        return write_texts(kind, line, texts)
    line, edits = _record_edits(line, records)
    return _set_all(line, [*_text_edits(kind, line.data, texts), *edits])


def write_header(chat: Chat, history: History) -> Chat:
    """The chat with `history`'s start, current state and snapshots in its metadata line
    (a plain chat is returned as is); the messages' records are not written."""
    if chat.kind == "plain" or chat.header is None:
        return chat
    header: Line = chat.header
    names = sorted(history.referenced())
    current = history.current_name()
    stored = {
        "version": VERSION,
        "chatId": history.chat_id,
        "start": history.start,
        "current": current,
        "state": storage_form(history, current),
        "snapshots": {name: storage_form(history, name) for name in names},
    }
    if not isinstance(header.data.get("chat_metadata"), dict):
        header = header.with_value(("chat_metadata",), {})
    return chat.with_header(_set(header, ("chat_metadata", NAMESPACE), stored))


def write_history(chat: Chat, history: History) -> Chat:
    """The chat with `history`'s records and snapshots stored (a plain chat is returned as is)."""
    if chat.kind == "plain" or chat.header is None:
        return chat
    lines: dict[int, Line] = {}
    for index, record in history.messages.items():
        if all(swipe is not None for swipe in record.swipes):
            swipes = [swipe for swipe in record.swipes if swipe is not None]
            lines[index] = write_records(chat.messages[index], swipes)
    return write_header(chat.with_messages(lines), history)


def assistant_swipes(chat: Chat, index: int) -> tuple[list[str], int]:
    """An assistant message's swipe texts and its current swipe."""
    data = chat.messages[index].data
    if not is_assistant(chat.kind, data):
        raise ValueError(f"message {index} is not an assistant message")
    return swipe_texts(chat.kind, data), current_swipe(data)
