"""Saved chats under hostile lines; lone surrogates; strict output; many swipes in linear time.

Issue 11: a chat line nested thousands deep or holding `NaN` or a huge number
is a `TranscriptError` "CHAT, line N: …" and every other chat still runs; a
lone UTF-16 surrogate in a message is written back as the escape it was;
every line gmtags writes is strict JSON; a message's swipes are written in
time linear in their number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gmtags import Ruleset, load_ruleset
from gmtags.commands.transcript import transcript
from gmtags.transcript import Chat, parse_chat, read_chat, reprocess
from gmtags.transcript import chat as chat_module
from gmtags.transcript.chat import TranscriptError
from gmtags.transcript.jsontext import rewrite, splice, splice_all
from tests.conftest import FIXTURES

RULESET = FIXTURES / "rulesets" / "clocks-default.json"
HEADER = {"user_name": "Mara", "character_name": "GM", "chat_metadata": {"chat_id": "hostile"}}
USER = {"name": "Mara", "is_user": True, "is_system": False, "mes": "We go in."}
CLOCK = '[clock: name="Alarm" size="4"]'


@pytest.fixture(scope="module")
def clocks() -> Ruleset:
    """A minimal ruleset with the default clocks."""
    return load_ruleset(RULESET)


def line(data: dict[str, Any]) -> str:
    """One chat line as SillyTavern writes it."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def gm(mes: str, **more: Any) -> dict[str, Any]:
    """An assistant message."""
    return {"name": "GM", "is_user": False, "is_system": False, "mes": mes, **more}


def chat_text(*lines: str) -> str:
    """A SillyTavern chat file: the metadata line, then `lines`."""
    return "\n".join([line(HEADER), *lines]) + "\n"


def strict(text: str) -> Any:
    """Parse `text` refusing what strict JSON has not (NaN, Infinity, -Infinity)."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} in output that must be strict JSON")

    return json.loads(text, parse_constant=refuse)


# name -> (the bad third line, what the message says, its column)
HOSTILE: dict[str, tuple[str, str, int]] = {
    "100,000 [": ('{"mes":"a","extra":' + "[" * 100_000 + "]" * 100_000 + "}", "nested", 119),
    "NaN": ('{"mes":"a","extra":{"score":NaN}}', "NaN is not allowed", 29),
    "Infinity": ('{"mes":"a","swipe_id":Infinity}', "Infinity is not allowed", 23),
    "-Infinity": ('{"mes":"a","swipe_id":-Infinity}', "-Infinity is not allowed", 23),
    "5,000 digits": ('{"mes":"a","swipe_id":' + "9" * 5_000 + "}", "5000 digits", 23),
    "1e999": ('{"mes":"a","extra":{"w":1e999}}', "1e999 is too large", 25),
}


class TestHostileLines:
    @pytest.mark.parametrize("name", list(HOSTILE))
    def test_refused_naming_chat_line_and_column(self, tmp_path: Path, name: str) -> None:
        """A hostile line is a `TranscriptError` "CHAT, line N: …, column C", nothing else."""
        bad, message, column = HOSTILE[name]
        file = tmp_path / "bad.jsonl"
        file.write_text(chat_text(line(USER), bad), encoding="utf-8")
        with pytest.raises(TranscriptError) as caught:
            read_chat(file)
        assert caught.value.line == 3
        assert str(caught.value).startswith(f"{file}, line 3: ")
        assert message in caught.value.reason and caught.value.reason.endswith(f"column {column}")

    @pytest.mark.parametrize("name", list(HOSTILE))
    def test_the_other_chats_still_run(self, tmp_path: Path, name: str) -> None:
        """`reprocess` of a folder: the bad chat is reported and left as is, the rest written."""
        chats, out = tmp_path / "chats", tmp_path / "out"
        chats.mkdir()
        bad_text = chat_text(line(USER), HOSTILE[name][0])
        (chats / "bad.jsonl").write_text(bad_text, encoding="utf-8")
        (chats / "good.jsonl").write_text(chat_text(line(USER), line(gm(CLOCK))), encoding="utf-8")
        result = CliRunner().invoke(
            transcript, ["reprocess", str(chats), "--ruleset", str(RULESET), "--out", str(out)]
        )
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        assert f"gmtags: {chats / 'bad.jsonl'}, line 3: " in result.stderr
        assert "Traceback" not in result.output
        assert (chats / "bad.jsonl").read_text(encoding="utf-8") == bad_text
        assert not (out / "bad.jsonl").exists()
        written = read_chat(out / "good.jsonl")
        assert 'result="ok" now="0/4"' in written.messages[1].data["mes"]


class TestLoneSurrogates:
    def test_reprocess_command_writes_them_back_escaped(self, tmp_path: Path) -> None:
        """`gmtags transcript reprocess`: a lone `\\ud83d` in `mes` or a swipe stays an escape."""
        message = gm(
            "Bell \ud83d " + CLOCK,
            swipes=["Bell \ud83d " + CLOCK, "Quiet \ude00.", "plain"],
            swipe_id=0,
            swipe_info=[{}, {}, {}],
        )
        # json.dumps writes a lone surrogate as its \\uXXXX escape, as SillyTavern's file would.
        source = tmp_path / "lone.jsonl"
        source.write_text(chat_text(line(USER), json.dumps(message)), encoding="utf-8")
        out = tmp_path / "out.jsonl"
        result = CliRunner().invoke(
            transcript, ["reprocess", str(source), "--ruleset", str(RULESET), "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        raw = out.read_bytes().decode("utf-8")  # strict UTF-8: no raw surrogate in the file
        written = raw.splitlines()[2]
        assert written.count("\\ud83d") == 2 and written.count("\\ude00") == 1
        data = strict(written)
        assert data["mes"].startswith("Bell \ud83d [clock: name=") and "now=" in data["mes"]
        assert data["swipes"][1] == "Quiet \ude00."
        assert read_chat(out).messages[1].data == data

    def test_unchanged_lines_are_kept_byte_for_byte(self, tmp_path: Path) -> None:
        """A line gmtags does not change keeps its escapes exactly as written."""
        note = '{"name":"Narrator","is_user":false,"is_system":true,"mes":"\\ud83d \\u00e9"}'
        chat = parse_chat(chat_text(line(USER), note, line(gm(CLOCK))), "lone")
        done = reprocess(chat, load_ruleset(RULESET)).chat
        assert done.dumps().splitlines()[2] == note

    def test_one_inside_a_tag_reaches_the_snapshot(self, tmp_path: Path) -> None:
        """A lone surrogate a sheet command stores is hashed, stored and read back escaped."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "sheets" / "crows.json")
        advance = '[sheet: sheet="party" op="advance" field="lair" to="Den \ud83d"]'
        chat = parse_chat(chat_text(line(USER), json.dumps(gm(advance))), "lone")
        text = reprocess(chat, ruleset).chat.dumps()
        text.encode("utf-8")
        assert reprocess(parse_chat(text, "lone"), ruleset).chat.dumps() == text

    def test_splice_escapes_them(self) -> None:
        """`splice` writes a lone surrogate half in a new value as its escape, pairs as they are."""
        out = splice('{"a":1}', ("b",), ["x\ud83d", "\U0001f600"])
        assert out == '{"a":1,"b":["x\\ud83d","\U0001f600"]}'
        assert strict(out)["b"] == ["x\ud83d", "\U0001f600"]


class TestStrictOutput:
    def test_every_reprocessed_line_is_strict(self, clocks: Ruleset) -> None:
        """Every line of a reprocessed chat, history metadata included, is strict JSON."""
        chat = parse_chat(
            chat_text(line(USER), line(gm(CLOCK, swipes=[CLOCK, "no tag"], swipe_id=1))), "s"
        )
        lines = reprocess(chat, clocks).chat.dumps().splitlines()
        parsed = [strict(text) for text in lines]
        stored = parsed[0]["chat_metadata"]["gmtags"]
        assert set(stored) == {"version", "chatId", "start", "current", "state", "snapshots"}
        assert parsed[2]["swipe_info"][0]["extra"]["gmtags"]["after"] in stored["snapshots"]

    def test_splice_refuses_nan(self) -> None:
        """A NaN value is never written into a chat line."""
        with pytest.raises(ValueError, match="JSON compliant"):
            splice('{"a":1}', ("a",), float("nan"))

    def test_splice_all_equals_splices_in_turn(self) -> None:
        """Setting many values in one pass gives the text splicing them one by one gives."""
        text = '{"k":1, "s":[{"e":{"x":1}},{"e":"odd"},{}], "m":{} ,"k":2}'
        edits: list[tuple[tuple[str | int, ...], Any]] = [
            (("s", 0, "e", "g"), {"n": 1}),
            (("s", 1, "e", "g"), 2),
            (("s", 2, "e", "g"), 3),
            (("m", "a"), 1),
            (("m", "b", "c"), 2),
            (("k",), 3),
            (("new",), [4]),
        ]
        one_by_one = text
        for path, value in edits:
            one_by_one = splice(one_by_one, path, value)
        assert splice_all(text, edits) == one_by_one


def many_swipes(count: int) -> Chat:
    """A chat whose one assistant message has `count` tiny swipes."""
    swipes = [f"s{index}" for index in range(count)]
    info = [{"send_date": "x", "extra": {}} for _ in range(count)]
    message = gm(swipes[0], swipes=swipes, swipe_id=0, swipe_info=info, extra={})
    return parse_chat(chat_text(line(USER), line(message)), "swipes")


class TestManySwipes:
    def test_the_line_is_written_once(
        self, clocks: Ruleset, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Every swipe's record goes into the line in one pass over its text, so the work is
        linear in the swipes (one whole-line edit per swipe was quadratic). Counted, not timed:
        the real `rewrite` (a splice, or the line written again whole), watched."""
        copied: list[int] = []

        def watched(text: str, data: Any, edited: Any, edits: Any) -> str:
            copied.append(len(text))
            return rewrite(text, data, edited, edits)

        monkeypatch.setattr(chat_module, "rewrite", watched)
        chat = many_swipes(4_000)
        done = reprocess(chat, clocks).chat.messages[1]
        lines = [chat.messages[1].text, *(line.text for line in (chat.header,) if line)]
        assert copied.count(len(chat.messages[1].text)) == 1  # the swipes' line: once
        assert sum(copied) <= sum(len(text) for text in lines)  # each line at most once
        assert len(done.data["swipe_info"]) == 4_000

    def test_every_swipe_gets_its_record(self, clocks: Ruleset) -> None:
        """All 4,000 swipes are written, each with its own record, in one edit of the line."""
        done = reprocess(many_swipes(4_000), clocks).chat.messages[1].data
        seeds = {entry["extra"]["gmtags"]["seed"] for entry in done["swipe_info"]}
        assert len(done["swipe_info"]) == 4_000 and len(seeds) == 4_000
        assert all(entry["send_date"] == "x" for entry in done["swipe_info"])
