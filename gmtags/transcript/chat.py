"""Saved chats: SillyTavern chat files and plain `{"role","content"}` JSONL (SPEC §6).

A SillyTavern chat is JSONL: a metadata line (`user_name`, `character_name`,
`create_date`, `chat_metadata`, …) then one message a line (`name`,
`is_user`, `is_system`, `send_date`, `mes`, `swipes`, `swipe_id`,
`swipe_info`, `extra`, …). A plain chat is one `{"role", "content"}` object a
line with no metadata line.

Every line keeps its original text. A line gmtags changes is edited in place
(`gmtags.transcript.jsontext.splice`), so every field gmtags does not own
stays byte for byte, key order included; lines it does not change are written
back exactly as read, and so are blank lines, line endings (`\\n` or `\\r\\n`)
and the presence or absence of a final line break.

Decisions where SPEC §6 is silent:
- The file is SillyTavern's when its first line is an object holding
  `chat_metadata`, `user_name` or `character_name`; otherwise every line must
  be a message (`role`/`content`, or SillyTavern's `mes`).
- Message indexes count message lines from 0, the metadata line and blank
  lines excluded (SPEC §6: "0-based line of the chat, metadata excluded").
- An assistant message is one with `is_user` false and `is_system` not true
  (SillyTavern), or `role` "assistant" (plain). Narrator and system notes,
  user turns and plain `system`/`user` lines are left untouched.
- A message's alternatives are `swipes` when it is a non-empty list of
  strings, else the one text `mes`; the current one is `swipe_id` (clamped
  into range, 0 when absent).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from gmtags.errors import GmtagsError
from gmtags.jsonfile import JsonTextError, loads
from gmtags.transcript.jsontext import Edit, apply_all, rewrite
from gmtags.transcript.jsontext import Path as JsonPath

Kind = Literal["sillytavern", "plain"]
_HEADER_KEYS = ("chat_metadata", "user_name", "character_name")


class TranscriptError(GmtagsError):
    """A chat file that cannot be read: where, and why (line numbers count from 1)."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = message
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Line:
    """One JSONL line: its text as read (line break excluded) and its parsed object."""

    text: str
    data: dict[str, Any]
    number: int
    """1-based line number in the file it was read from."""

    def with_value(self, path: JsonPath, value: Any) -> Line:
        """This line with the value at `path` set; the text changes only there."""
        return self.with_values([(path, value)])

    def with_values(self, edits: Sequence[Edit]) -> Line:
        """This line with every `(path, value)` of `edits` set, in one pass over its text.

        Issue 11: a message with thousands of swipes gets all its per-swipe
        records written at once, in time linear in the line, not one whole-line
        edit each. Issue 16: the data is edited as the text is (`apply_all`),
        never parsed again from it; and a line spelled exactly as gmtags would
        write its data (`JSON.stringify`'s spelling, as SillyTavern writes its
        chats) is written again whole from the edited data, which gives the same
        text as splicing it (`gmtags.transcript.jsontext.rewrite`) in a fraction
        of the time.
        """
        if not edits:
            return self
        data = apply_all(self.data, edits)
        return Line(rewrite(self.text, self.data, data, edits), data, self.number)


@dataclass(frozen=True, slots=True)
class Chat:
    """A saved chat: its kind, its metadata line (SillyTavern), its messages, its layout."""

    kind: Kind
    name: str
    """The file name without its extension (the chat id when the metadata has none)."""
    header: Line | None
    messages: tuple[Line, ...]
    layout: tuple[int | str, ...] = field(default=())
    """Where each physical line goes: a message index, "header", or a blank line's text."""
    newline: str = "\n"
    final_newline: bool = False
    bom: bool = False
    """True when the file began with a byte-order mark (written back the same)."""

    @property
    def chat_id(self) -> str:
        """SPEC §7.1: `chat_metadata.gmtags.chatId`, else `chat_metadata.chat_id`, else the file
        name without its extension (gmtags writes the one it used back as `gmtags.chatId`)."""
        metadata = self.metadata
        own = metadata.get("gmtags")
        for chat_id in (
            own.get("chatId") if isinstance(own, dict) else None,
            metadata.get("chat_id"),
        ):
            if isinstance(chat_id, str | int) and not isinstance(chat_id, bool) and str(chat_id):
                return str(chat_id)
        return self.name

    @property
    def metadata(self) -> dict[str, Any]:
        """`chat_metadata` of the metadata line (empty for a plain chat)."""
        if self.header is None:
            return {}
        metadata = self.header.data.get("chat_metadata")
        return metadata if isinstance(metadata, dict) else {}

    def with_message(self, index: int, line: Line) -> Chat:
        """This chat with message `index` replaced."""
        messages = list(self.messages)
        messages[index] = line
        return replace(self, messages=tuple(messages))

    def with_messages(self, lines: Mapping[int, Line]) -> Chat:
        """This chat with each message `index` of `lines` replaced (one copy of the messages)."""
        if not lines:
            return self
        messages = list(self.messages)
        for index, line in lines.items():
            messages[index] = line
        return replace(self, messages=tuple(messages))

    def with_header(self, header: Line) -> Chat:
        """This chat with its metadata line replaced."""
        return replace(self, header=header)

    def assistant_indexes(self) -> Iterator[int]:
        """The indexes of the assistant messages, in chat order."""
        for index, line in enumerate(self.messages):
            if is_assistant(self.kind, line.data):
                yield index

    def dumps(self) -> str:
        """The chat as file text: unchanged lines exactly as read."""
        lines: list[str] = []
        for item in self.layout:
            if item == "header":
                assert self.header is not None
                lines.append(self.header.text)
            elif isinstance(item, int):
                lines.append(self.messages[item].text)
            else:
                lines.append(item)
        text = self.newline.join(lines)
        text = text + self.newline if self.final_newline and lines else text
        return "\ufeff" + text if self.bom else text

    def without_messages(self, indexes: set[int]) -> Chat:
        """This chat with the messages at `indexes` removed (their lines go too)."""
        kept = [i for i in range(len(self.messages)) if i not in indexes]
        renumber = {old: new for new, old in enumerate(kept)}
        layout = tuple(
            renumber[item] if isinstance(item, int) else item
            for item in self.layout
            if not (isinstance(item, int) and item in indexes)
        )
        messages = tuple(self.messages[i] for i in kept)
        return replace(self, messages=messages, layout=layout)


def is_assistant(kind: Kind, data: dict[str, Any]) -> bool:
    """SPEC §6: `is_user` false and `is_system` not true; `role` "assistant" in plain JSONL."""
    if kind == "plain" and "role" in data:
        return data.get("role") == "assistant"
    return data.get("is_user") is False and data.get("is_system") is not True


def text_key(kind: Kind, data: dict[str, Any]) -> str:
    """The key that holds a message's shown text: `mes`, or `content` in plain JSONL."""
    return "content" if kind == "plain" and "content" in data and "mes" not in data else "mes"


def swipe_texts(kind: Kind, data: dict[str, Any]) -> list[str]:
    """A message's alternatives: `swipes` when it is a list of strings, else its one text."""
    swipes = data.get("swipes")
    if isinstance(swipes, list) and swipes and all(isinstance(s, str) for s in swipes):
        return list(swipes)
    text = data.get(text_key(kind, data))
    return [text if isinstance(text, str) else ""]


def has_swipes(data: dict[str, Any]) -> bool:
    """True when the message keeps its alternatives in `swipes`."""
    swipes = data.get("swipes")
    return isinstance(swipes, list) and bool(swipes) and all(isinstance(s, str) for s in swipes)


def current_swipe(data: dict[str, Any]) -> int:
    """`swipe_id`, clamped into the swipes there are; 0 without swipes."""
    if not has_swipes(data):
        return 0
    swipe_id = data.get("swipe_id")
    count = len(data["swipes"])
    if not isinstance(swipe_id, int) or isinstance(swipe_id, bool):
        return 0
    return min(max(swipe_id, 0), count - 1)


def _split_lines(text: str) -> tuple[list[str], str, bool]:
    newline = "\r\n" if "\r\n" in text else "\n"
    final = text.endswith("\n")
    body = text[: -len(newline)] if final and text.endswith(newline) else text.rstrip("\n")
    return (body.split(newline) if body else []), newline, final


def _parse_line(path: str, number: int, text: str) -> dict[str, Any]:
    """One chat line's object; `TranscriptError` "CHAT, line N: …" for anything else.

    Issue 11: a line is strict JSON (`gmtags.jsonfile.loads`), so nesting past
    100 levels, `NaN`/`Infinity` and integers of more than 21 digits are
    refused with their column, never a `RecursionError` or `ValueError`. A
    repeated key (the last one counts, as SillyTavern's `JSON.parse` reads it)
    and a lone UTF-16 surrogate half are read: SPEC §8, "a chat that already
    holds such text (from an older version or a file) still works".
    """
    try:
        data = loads(text, duplicates=True)
    except JsonTextError as error:
        raise TranscriptError(path, f"{error.message}, column {error.column}", number) from None
    if not isinstance(data, dict):
        raise TranscriptError(path, "a chat line must be a JSON object", number)
    return data


def parse_chat(text: str, name: str, path: str | None = None) -> Chat:
    """Read a chat from its file text; `name` is the file name without its extension."""
    where = path or name
    raw_lines, newline, final = _split_lines(text.removeprefix("\ufeff"))
    header: Line | None = None
    messages: list[Line] = []
    layout: list[int | str] = []
    kind: Kind | None = None
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            layout.append(raw)
            continue
        data = _parse_line(where, number, raw)
        if kind is None:
            kind = "sillytavern" if any(key in data for key in _HEADER_KEYS) else "plain"
            if kind == "sillytavern":
                header = Line(raw, data, number)
                layout.append("header")
                continue
        if kind == "plain" and not ("role" in data or "mes" in data):
            raise TranscriptError(where, 'a message needs "role" and "content" (or "mes")', number)
        layout.append(len(messages))
        messages.append(Line(raw, data, number))
    bom = text.startswith("\ufeff")
    return Chat(kind or "plain", name, header, tuple(messages), tuple(layout), newline, final, bom)


def read_chat_text(path: str | os.PathLike[str]) -> str:
    """A chat file's text as `read_chat` parses it, its line endings as they are in the file
    (no newline translation: a `\\r\\n` file is written back with `\\r\\n`); `TranscriptError`
    when it is not UTF-8."""
    file = Path(path)
    try:
        return file.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise TranscriptError(str(file), "not UTF-8 text") from None


def read_chat(path: str | os.PathLike[str]) -> Chat:
    """Read a chat file; `TranscriptError` names the line of any bad JSON."""
    file = Path(path)
    return parse_chat(read_chat_text(file), file.stem, str(file))


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and `os.replace`.

    A reader (or a crash) sees the old file or the new one, never half of one.
    A file that already exists keeps its permissions and, where this process
    may set them, its owner and group (SillyTavern may run as another user
    and must still read its chat); a new file gets the usual mode for this
    process's umask.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if old is not None:
            os.chmod(temporary, stat.S_IMODE(old.st_mode))
            with contextlib.suppress(PermissionError):
                os.chown(temporary, old.st_uid, old.st_gid)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_chat(chat: Chat, path: str | os.PathLike[str]) -> None:
    """Write a chat atomically (temporary file in the same folder, then `os.replace`)."""
    write_atomic(path, chat.dumps())
