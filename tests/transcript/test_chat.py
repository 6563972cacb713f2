"""gmtags/transcript/chat.py: reading and writing saved chats byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmtags.transcript.chat import (
    TranscriptError,
    current_swipe,
    parse_chat,
    read_chat,
    swipe_texts,
    write_atomic,
)
from tests.transcript.conftest import GROUP, HEIST, PLAIN


class TestParseChat:
    def test_round_trip_is_byte_identical(self) -> None:
        """An unchanged chat is written back exactly as read, blank lines and endings included."""
        for path in (HEIST, GROUP, PLAIN):
            text = path.read_text(encoding="utf-8")
            assert read_chat(path).dumps() == text

    def test_crlf_and_bom_survive(self) -> None:
        """Windows line endings and a byte-order mark are written back as they were."""
        text = '\ufeff{"chat_metadata":{}}\r\n{"name":"A","is_user":true,"mes":"hi"}\r\n'
        assert parse_chat(text, "x").dumps() == text

    def test_a_crlf_file_keeps_its_endings(self, tmp_path: Path) -> None:
        """A chat file with Windows line endings is read with them (no newline translation),
        so an unchanged chat is written back byte for byte."""
        path = tmp_path / "windows.jsonl"
        path.write_bytes(HEIST.read_bytes().replace(b"\n", b"\r\n"))
        chat = read_chat(path)
        assert chat.dumps().encode("utf-8") == path.read_bytes()
        write_atomic(tmp_path / "out.jsonl", chat.dumps())
        assert (tmp_path / "out.jsonl").read_bytes() == path.read_bytes()

    def test_kinds_and_assistants(self) -> None:
        """SillyTavern assistants: is_user false and is_system not true; plain: role assistant."""
        heist = read_chat(HEIST)
        assert heist.kind == "sillytavern"
        assert list(heist.assistant_indexes()) == [0, 2, 5, 7]
        plain = read_chat(PLAIN)
        assert plain.kind == "plain"
        assert list(plain.assistant_indexes()) == [2, 4]

    def test_chat_id(self) -> None:
        """The chat id is chat_metadata.chat_id, else the file name without its extension."""
        assert read_chat(HEIST).chat_id == "crows-heist-0001"
        assert read_chat(GROUP).chat_id == "crows-group"
        assert read_chat(PLAIN).chat_id == "plain-crows"

    def test_swipes_and_current(self) -> None:
        """Swipes come from `swipes`, the current one from `swipe_id`; else the one text."""
        heist = read_chat(HEIST)
        assert len(swipe_texts("sillytavern", heist.messages[2].data)) == 3
        assert current_swipe(heist.messages[2].data) == 1
        assert swipe_texts("sillytavern", heist.messages[0].data) == [heist.messages[0].data["mes"]]

    def test_bad_json_names_the_line(self, tmp_path: Path) -> None:
        """A line that is not JSON is reported with its 1-based line number."""
        path = tmp_path / "bad.jsonl"
        path.write_text('{"chat_metadata":{}}\n{"name":"A","mes":}\n', encoding="utf-8")
        with pytest.raises(TranscriptError, match="line 2: not valid JSON"):
            read_chat(path)

    def test_line_that_is_not_an_object(self) -> None:
        """A line holding a JSON array is refused with its line number."""
        with pytest.raises(TranscriptError, match="line 1"):
            parse_chat("[1, 2]\n", "x")

    def test_delete_renumbers(self) -> None:
        """Removing messages drops their lines and renumbers the rest."""
        heist = read_chat(HEIST)
        shorter = heist.without_messages({1, 3})
        assert len(shorter.messages) == len(heist.messages) - 2
        assert shorter.messages[1].text == heist.messages[2].text


class TestWriteAtomic:
    def test_replaces_the_file_and_leaves_no_temporary(self, tmp_path: Path) -> None:
        """The new text replaces the old one and no temporary file is left behind."""
        path = tmp_path / "chat.jsonl"
        path.write_text("old", encoding="utf-8")
        write_atomic(path, "new\r\n")
        assert path.read_bytes() == b"new\r\n"
        assert [p.name for p in tmp_path.iterdir()] == ["chat.jsonl"]
