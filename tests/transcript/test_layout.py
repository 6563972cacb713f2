"""gmtags/transcript/layout.py: where a chat file keeps its snapshot history."""

from __future__ import annotations

import json

import pytest

from gmtags import Ruleset, Snapshot
from gmtags.history.records import SwipeRecord
from gmtags.transcript import Chat, parse_chat, read_chat, reprocess
from gmtags.transcript.layout import stored_start, write_message, write_records, write_texts
from tests.transcript.conftest import GOLDEN, HEIST


def records(count: int) -> list[SwipeRecord]:
    """`count` distinct records, as a message with that many swipes gets."""
    return [SwipeRecord(f"b{index}", f"a{index}", index) for index in range(count)]


class TestWriteMessage:
    @pytest.mark.parametrize("source", [HEIST, GOLDEN / "odd.jsonl", GOLDEN / "generated.jsonl"])
    def test_one_edit_writes_what_two_write(self, source: object) -> None:
        """Texts and records written in one edit of the line give the line, and the data,
        that writing the texts and then the records gives (issue 16)."""
        chat = read_chat(str(source))
        for index in chat.assistant_indexes():
            line = chat.messages[index]
            swipes = line.data.get("swipes")
            count = len(swipes) if isinstance(swipes, list) and swipes else 1
            texts = [f"new {index}.{swipe} é" for swipe in range(count)]
            made = records(count)
            once = write_message(chat.kind, line, texts, made)
            twice = write_records(write_texts(chat.kind, line, texts), made)
            assert once.text == twice.text
            assert once.data == twice.data == json.loads(once.text)

    def test_a_plain_chat_gets_only_its_texts(self) -> None:
        """A role/content message has no place for records: only `content` changes."""
        chat = parse_chat('{"role":"assistant","content":"x","meta":{"t":1.0}}\n', "plain")
        line = write_message("plain", chat.messages[0], ["y"], records(1))
        assert line.text == '{"role":"assistant","content":"y","meta":{"t":1.0}}'


class TestStoredStart:
    def test_the_start_entry_alone(self, heist: Chat, crows: Ruleset, start: Snapshot) -> None:
        """The start is read from its own entry, the same snapshot the whole table gives."""
        done = reprocess(heist, crows, start).chat
        assert stored_start(done) == start

    def test_an_edited_start_entry_is_not_trusted(
        self, heist: Chat, crows: Ruleset, start: Snapshot
    ) -> None:
        """A start entry whose content no longer matches its name is not the start."""
        text = reprocess(heist, crows, start).chat.dumps()
        header = json.loads(text.splitlines()[0])
        own = header["chat_metadata"]["gmtags"]
        own["snapshots"][own["start"]] = {"gamePartySheet": {"fields": {"vault": 99}}}
        edited = "\n".join([json.dumps(header), *text.splitlines()[1:]])
        assert stored_start(parse_chat(edited, "heist")) is None
