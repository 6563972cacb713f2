"""gmtags/commands/serve.py: the `serve` command's flags and its errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gmtags.commands import serve as cli
from gmtags.server.auth import TokenGate
from gmtags.server.config import ServerConfig
from gmtags.server.guard import Guard, Policy
from gmtags.server.prefix import ChatPrefix
from gmtags.server.protocol import Protocol
from gmtags.server.settings import ServeSettings

DEMO = Path(__file__).resolve().parents[2] / "gmtags" / "demo"
DEMO_RULESET = str(DEMO / "ruleset.json")


class TestServeCommand:
    def test_flags_make_the_config(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """Every SPEC §7 flag reaches the server: upstream, address, history, state, display."""
        seen: dict[str, Any] = {}

        def create_app(config: ServerConfig) -> str:
            seen["config"] = config
            return "app"

        def run(app: Any, host: str, port: int, log_level: str, http: Any) -> None:
            seen.update(app=app, host=host, port=port, http=http)

        monkeypatch.setattr(cli, "create_app", create_app)
        monkeypatch.setattr(cli, "settle", lambda config: seen.update(settled=config))
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
        assert seen["http"] is Protocol
        assert config.upstream == "http://127.0.0.1:9/v1" and config.display == "hidden"
        assert config.db == str(tmp_path / "h.db")
        assert "Bram the Quiet" in config.start.game_character_cards
        assert seen["settled"] is config

    @pytest.mark.parametrize(
        ("given", "display"),
        [
            ((), "receipts"),
            (("--display", "receipts"), "receipts"),
            (("--display", "cards"), "cards"),
            (("--display", "hidden"), "hidden"),
            (("--display", "--port", "9999"), "hidden"),
            (("--display=cards",), "cards"),
        ],
    )
    def test_display_modes(
        self, monkeypatch: pytest.MonkeyPatch, given: tuple[str, ...], display: str
    ) -> None:
        """SPEC §7.3: `--display receipts|cards|hidden`, receipts by default; the old bare
        `--display` still means hidden."""
        seen: dict[str, ServerConfig] = {}
        monkeypatch.setattr(cli, "create_app", lambda config: seen.setdefault("config", config))
        monkeypatch.setattr(cli, "settle", lambda config: None)
        monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: None)
        args = [
            "--ruleset",
            DEMO_RULESET,
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--db",
            ":memory:",
        ]
        result = CliRunner().invoke(cli.serve_command, [*args, *given])
        assert result.exit_code == 0, result.output
        assert seen["config"].display == display

    def test_an_unknown_display_is_a_usage_error(self) -> None:
        """A display mode SPEC §7.3 does not name is refused (exit 2)."""
        args = ["--ruleset", DEMO_RULESET, "--upstream", "http://127.0.0.1:9/v1"]
        result = CliRunner().invoke(cli.serve_command, [*args, "--display", "tags"])
        assert result.exit_code == 2 and "tags" in result.output

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


class TestWorkers:
    def test_several_workers_need_a_file(self) -> None:
        """Workers share one history file: `--workers 2 --db :memory:` is a usage error."""
        args = ["--ruleset", DEMO_RULESET, "--upstream", "http://127.0.0.1:9/v1"]
        result = CliRunner().invoke(
            cli.serve_command, [*args, "--workers", "2", "--db", ":memory:"]
        )
        assert result.exit_code == 2 and ":memory:" in result.output

    def test_a_worker_builds_the_app_from_its_settings(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """A worker process makes the same proxy from the settings its parent left (the token
        from GMTAGS_TOKEN, never in the settings' JSON), starting its chats from the state."""
        settings = ServeSettings(
            ruleset=DEMO_RULESET,
            state=str(DEMO / "state.json"),
            upstream="http://127.0.0.1:9/v1",
            db=str(tmp_path / "h.db"),
            display="cards",
            host="0.0.0.0",
            public_host=("gm.example",),
            allow_origin=("http://127.0.0.1:8000",),
            token="secret",
            max_body=4096,
        )
        given = settings.model_dump_json(exclude={"token"})
        assert "secret" not in given
        monkeypatch.setenv(cli.OPTIONS_ENV, given)
        monkeypatch.setenv(cli.TOKEN_ENV, "secret")
        config = cli.server_config(settings)
        settled: list[ServerConfig] = []
        monkeypatch.setattr(cli, "settle", settled.append)  # gc.freeze: not in this process
        app = cli.worker_app()
        assert [c.start for c in settled] == [config.start]
        assert settled[0] == config  # display, token, limits: passed through the settings
        assert config.display == "cards" and config.max_body == 4096
        book = app.state.book
        assert book.start == config.start and "Bram the Quiet" in book.start.game_character_cards
        assert book.store.path == str(tmp_path / "h.db")
        policy = Policy("0.0.0.0", ("gm.example",), ("http://127.0.0.1:8000",))
        middleware = app.user_middleware
        assert [m.cls for m in middleware] == [Guard, ChatPrefix, TokenGate]
        assert middleware[0].kwargs == {"policy": policy}
        assert middleware[2].kwargs["token"] == "secret"
        book.store.close()


class TestSettle:
    def test_a_served_process_is_warm_and_frozen(self) -> None:
        """`settle` builds the tag parser and leaves the start-up objects out of the cyclic
        collector (run in a fresh interpreter: freezing is for the whole process)."""
        code = (
            "import gc; from gmtags.server.app import settle;"
            " from gmtags.server.demo import demo_config; from gmtags.tags.parse import parser;"
            " settle(demo_config('http://127.0.0.1:9/v1'));"
            " print(gc.get_freeze_count() > 10000, parser.cache_info().currsize)"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        )
        assert done.stdout.split() == ["True", "1"]
