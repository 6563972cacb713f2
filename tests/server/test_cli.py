"""gmtags/server/cli.py: the `serve` command's flags and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gmtags.server import cli
from gmtags.server.config import ServerConfig

DEMO = Path(__file__).resolve().parents[2] / "gmtags" / "demo"
DEMO_RULESET = str(DEMO / "ruleset.json")


class TestServeCommand:
    def test_flags_make_the_config(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """Every SPEC §7 flag reaches the server: upstream, address, history, state, display."""
        seen: dict[str, Any] = {}

        def create_app(config: ServerConfig) -> str:
            seen["config"] = config
            return "app"

        def run(app: Any, host: str, port: int, log_level: str) -> None:
            seen.update(app=app, host=host, port=port)

        monkeypatch.setattr(cli, "create_app", create_app)
        monkeypatch.setattr("uvicorn.run", run)
        args = [
            *("--ruleset", DEMO_RULESET, "--upstream", "http://127.0.0.1:9/v1"),
            *("--host", "127.0.0.1", "--port", "9999", "--db", str(tmp_path / "h.db")),
            *("--state", str(DEMO / "state.json"), "--display"),
        ]
        result = CliRunner().invoke(cli.serve_command, args)
        assert result.exit_code == 0, result.output
        config: ServerConfig = seen["config"]
        assert (seen["host"], seen["port"], seen["app"]) == ("127.0.0.1", 9999, "app")
        assert config.upstream == "http://127.0.0.1:9/v1" and config.display
        assert config.db == str(tmp_path / "h.db")
        assert "Bram the Quiet" in config.start.game_character_cards

    def test_missing_ruleset_exits_1(self) -> None:
        """A ruleset file that is not there is one line on stderr and exit 1."""
        args = ["--ruleset", "no-such.json", "--upstream", "http://127.0.0.1:9/v1"]
        result = CliRunner().invoke(cli.serve_command, args)
        assert result.exit_code == 1
        assert "not found" in result.output

    def test_upstream_must_be_a_url(self) -> None:
        """An upstream that is not an http(s) URL is a usage error (exit 2)."""
        result = CliRunner().invoke(
            cli.serve_command, ["--ruleset", DEMO_RULESET, "--upstream", "x"]
        )
        assert result.exit_code == 2
