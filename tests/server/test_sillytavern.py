"""gmtags/server/sillytavern-hide-receipts.json: the SillyTavern display rule."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from gmtags import process
from gmtags.demo import demo_file
from gmtags.server.demo import demo_config
from gmtags.server.demo_upstream import DEMO_REPLIES


def _script() -> dict[str, Any]:
    text = resources.files("gmtags.server").joinpath("sillytavern-hide-receipts.json")
    data: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return data


def _pattern(find: str) -> re.Pattern[str]:
    """The script's `/pattern/flags` as a Python pattern (the syntax it uses is shared)."""
    match = re.fullmatch(r"/(.*)/([dgimsuvy]*)", find, re.S)
    assert match is not None
    flags = (re.I if "i" in match[2] else 0) | (re.M if "m" in match[2] else 0)
    return re.compile(match[1], flags)


class TestHideReceiptsScript:
    def test_the_command_line_prints_it(self) -> None:
        """`gmtags sillytavern regex` prints the script, from a clone or from the wheel."""
        from click.testing import CliRunner

        from gmtags.commands.sillytavern import sillytavern

        printed = CliRunner().invoke(sillytavern, ["regex"])
        assert printed.exit_code == 0 and json.loads(printed.output) == _script()

    def test_alters_the_chat_display_only(self) -> None:
        """The script runs on AI output for display only, so the saved chat keeps receipts."""
        script = _script()
        assert script["placement"] == [2]
        assert script["markdownOnly"] is True and script["promptOnly"] is False
        assert script["disabled"] is False and script["replaceString"] == ""

    @pytest.mark.parametrize(
        "reply", [*DEMO_REPLIES, demo_file("reply.txt").read_text(encoding="utf-8")]
    )
    def test_hides_receipts_like_display(self, reply: str) -> None:
        """Applied to a reply with receipts, it shows what `--display` shows."""
        config = demo_config("http://127.0.0.1:1/v1")
        result = process(reply, config.ruleset, config.start, seed=5)
        assert _pattern(_script()["findRegex"]).sub("", result.text) == result.display
