"""gmtags/server/settings.py and `gmtags serve`'s settings (SPEC §14): every flag also from
the environment and a TOML file, a flag over the environment over the file over the
default, `--print-config`, and errors that name where a bad value came from."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from gmtags.commands import serve as cli
from gmtags.server.config import ServerConfig
from gmtags.server.settings import (
    FIELDS,
    MASK,
    SettingsError,
    env_of,
    flag_of,
    load_settings,
    masked_url,
)
from tests.conftest import Ran, invoke

DEMO = Path(__file__).resolve().parents[2] / "gmtags" / "demo"
RULESET = str(DEMO / "ruleset.json")
UPSTREAM = "http://127.0.0.1:9/v1"
BASE = ("--ruleset", RULESET, "--upstream", UPSTREAM)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No GMTAGS_* variable of the machine running the tests leaks into them."""
    for name in list(os.environ):
        if name.startswith("GMTAGS_"):
            monkeypatch.delenv(name)
    yield


def serve(*args: str) -> Ran:
    return invoke(cli.serve_command, *args)


def served_config(monkeypatch: pytest.MonkeyPatch, *args: str) -> ServerConfig:
    """The `ServerConfig` `gmtags serve ARGS` would serve (nothing is served)."""
    seen: dict[str, ServerConfig] = {}
    monkeypatch.setattr(cli, "create_app", lambda config: seen.setdefault("config", config))
    monkeypatch.setattr(cli, "settle", lambda config: None)
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    ran = serve("--db", ":memory:", *args)
    assert ran.returncode == 0, ran.stderr
    return seen["config"]


def toml(tmp_path: Path, text: str) -> str:
    path = tmp_path / "gmtags.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def report_rows(text: str) -> dict[str, tuple[str, str]]:
    """`--print-config`'s rows: each setting's value and where it came from."""
    rows = {}
    for line in text.splitlines()[2:]:
        name, value, source = re.split(r"\s{2,}", line.strip(), maxsplit=2)
        rows[name] = (value, source)
    return rows


class TestNames:
    def test_every_flag_is_a_setting(self) -> None:
        """Each `gmtags serve` option but --config and --print-config is a setting of the
        same name, and each setting has its flag."""
        options = {p.name for p in cli.serve_command.params if isinstance(p, click.Option)}
        assert options - {"config_file", "print_config", "help"} == set(FIELDS)
        flags = {o for p in cli.serve_command.params for o in p.opts}
        assert {flag_of(name) for name in FIELDS} <= flags

    def test_the_environment_names(self) -> None:
        """GMTAGS_ and the flag's name in capitals, - as _."""
        assert env_of("upstream_key_env") == "GMTAGS_UPSTREAM_KEY_ENV"
        assert flag_of("upstream_key_env") == "--upstream-key-env"


class TestPrecedence:
    def test_flag_over_environment_over_file_over_default(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """One setting in all three places takes the flag's value; each origin is recorded."""
        path = toml(tmp_path, 'port = 1001\nhost = "127.0.0.2"\nprompt_marker = "<<gm>>"\n')
        monkeypatch.setenv("GMTAGS_PORT", "1002")
        monkeypatch.setenv("GMTAGS_HOST", "127.0.0.3")
        loaded = load_settings({"port": 1003, "ruleset": RULESET, "upstream": UPSTREAM}, path)
        settings = loaded.settings
        assert (settings.port, settings.host, settings.prompt_marker) == (
            1003,
            "127.0.0.3",
            "<<gm>>",
        )
        assert settings.turn_marker == "{{gmtags_turn}}"
        assert dict(loaded.origins) == {
            "port": "flag",
            "host": "environment",
            "prompt_marker": "file",
            "ruleset": "flag",
            "upstream": "flag",
        }

    def test_a_flag_given_its_default_value_still_wins(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`--port 8787` beats GMTAGS_PORT even though 8787 is the default: a flag counts when
        it is on the command line, whatever its value."""
        monkeypatch.setenv("GMTAGS_PORT", "9000")
        monkeypatch.setenv("GMTAGS_DISPLAY", "cards")
        ran = serve(*BASE, "--port", "8787", "--display", "receipts", "--print-config")
        rows = report_rows(ran.stdout)
        assert rows["port"] == ("8787", "flag --port")
        assert rows["display"] == ("receipts", "flag --display")

    def test_everything_from_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """`gmtags serve` with no flag at all, as a container runs it: lists comma-separated,
        booleans as words."""
        for name, value in {
            "RULESET": RULESET,
            "UPSTREAM": UPSTREAM,
            "STATE": str(DEMO / "state.json"),
            "PUBLIC_HOST": "gm.example.org, lan.local",
            "ALLOW_ORIGIN": "http://127.0.0.1:8000",
            "MERGE_INSTRUCTIONS": "true",
            "DISPLAY": "hidden",
            "MAX_BODY": "2048",
            "UPSTREAM_TIMEOUT": "12.5",
            "TURN_MARKER": "[[turn]]",
        }.items():
            monkeypatch.setenv(f"GMTAGS_{name}", value)
        config = served_config(monkeypatch)
        assert config.public_hosts == ("gm.example.org", "lan.local")
        assert config.allow_origins == ("http://127.0.0.1:8000",)
        assert config.merge_instructions and config.display == "hidden"
        assert (config.max_body, config.upstream_timeout) == (2048, 12.5)
        assert config.turn_marker == "[[turn]]" and config.prompt_marker == "{{gmtags}}"
        assert "Bram the Quiet" in config.start.game_character_cards

    def test_everything_from_a_file(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """A TOML file keyed in snake_case, lists as arrays; GMTAGS_CONFIG names it too."""
        monkeypatch.setenv("SERVER_KEY", "sk-from-the-server")
        path = toml(
            tmp_path,
            f"ruleset = {RULESET!r}\nupstream = {UPSTREAM!r}\n"
            'upstream_key_env = "SERVER_KEY"\npublic_host = ["a.example", "b.example"]\n'
            'token = "t0ken"\nmax_body = 65536\nupstream_timeout = 30\n',
        )
        config = served_config(monkeypatch, "--config", path)
        assert config.upstream_key == "sk-from-the-server" and config.token == "t0ken"
        assert config.public_hosts == ("a.example", "b.example")
        assert (config.max_body, config.upstream_timeout) == (65536, 30.0)
        monkeypatch.setenv("GMTAGS_CONFIG", path)
        assert served_config(monkeypatch).upstream_key == "sk-from-the-server"

    def test_an_empty_variable_is_unset(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """`GMTAGS_STATE=` (a blank line of an .env file) leaves the setting at its default."""
        monkeypatch.setenv("GMTAGS_STATE", "")
        monkeypatch.setenv("GMTAGS_PORT", "")
        rows = report_rows(serve(*BASE, "--print-config").stdout)
        assert rows["state"] == ("(none)", "default") and rows["port"] == ("8787", "default")

    def test_new_flags_reach_the_config(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """--upstream-key-env, --prompt-marker, --turn-marker, --max-body, --upstream-timeout."""
        monkeypatch.setenv("MY_KEY", "sk-abc")
        config = served_config(
            monkeypatch,
            *BASE,
            *("--upstream-key-env", "MY_KEY", "--prompt-marker", "@@gm@@"),
            *("--turn-marker", "@@turn@@", "--max-body", "4096", "--upstream-timeout", "5"),
        )
        assert (config.upstream_key, config.prompt_marker, config.turn_marker) == (
            "sk-abc",
            "@@gm@@",
            "@@turn@@",
        )
        assert (config.max_body, config.upstream_timeout) == (4096, 5.0)

    def test_the_upstream_url_passes_through(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """With or without /v1, the URL reaches the server as given."""
        for url in ("http://127.0.0.1:9", "http://127.0.0.1:9/v1/"):
            config = served_config(monkeypatch, "--ruleset", RULESET, "--upstream", url)
            assert config.upstream == url


class TestPrintConfig:
    def test_values_and_origins_with_secrets_masked(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """Each setting, its value and where it came from; the token and the key masked."""
        monkeypatch.setenv("GMTAGS_TOKEN", "tok-secret-123")
        monkeypatch.setenv("GMTAGS_UPSTREAM", "https://user:pa55word@api.example/v1")
        monkeypatch.setenv("THE_KEY", "sk-very-secret")
        path = toml(tmp_path, 'upstream_key_env = "THE_KEY"\nworkers = 2\n')
        ran = serve("--ruleset", RULESET, "--config", path, "--print-config")
        assert ran.returncode == 0, ran.stderr
        for secret in ("tok-secret-123", "sk-very-secret", "pa55word"):
            assert secret not in ran.stdout
        rows = report_rows(ran.stdout)
        assert rows["ruleset"] == (RULESET, "flag --ruleset")
        assert rows["upstream"] == (
            f"https://user:{MASK}@api.example/v1",
            "environment GMTAGS_UPSTREAM",
        )
        assert rows["token"] == (MASK, "environment GMTAGS_TOKEN")
        assert rows["upstream_key_env"] == ("THE_KEY", f"file {path}")
        assert rows["upstream key"] == (MASK, "environment THE_KEY")
        assert rows["workers"] == ("2", f"file {path}")
        assert rows["port"] == ("8787", "default")
        assert f"config file: {path}" in ran.stdout

    def test_it_serves_nothing(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """--print-config exits 0 without reading the ruleset or serving."""
        monkeypatch.setattr("uvicorn.run", lambda *a, **k: pytest.fail("served"))
        ran = serve("--ruleset", "not-read.json", "--upstream", UPSTREAM, "--print-config")
        assert ran.returncode == 0 and "not-read.json" in ran.stdout

    def test_masked_url(self) -> None:
        """Only a URL's password is masked."""
        assert masked_url("postgresql://gm:pw@db/gm") == f"postgresql://gm:{MASK}@db/gm"
        assert masked_url("postgresql://gm@db/gm") == "postgresql://gm@db/gm"
        assert masked_url("gmtags.sqlite3") == "gmtags.sqlite3"


class TestErrors:
    @pytest.mark.parametrize(
        ("variable", "value", "named"),
        [
            ("GMTAGS_PORT", "eighty", "GMTAGS_PORT"),
            ("GMTAGS_PORT", "70000", "GMTAGS_PORT"),
            ("GMTAGS_DISPLAY", "tags", "GMTAGS_DISPLAY"),
            ("GMTAGS_MERGE_INSTRUCTIONS", "maybe", "GMTAGS_MERGE_INSTRUCTIONS"),
            ("GMTAGS_UPSTREAM", "ftp://x", "GMTAGS_UPSTREAM"),
            ("GMTAGS_ALLOW_ORIGIN", "*", "GMTAGS_ALLOW_ORIGIN"),
            ("GMTAGS_RULESETS", "/no/such/folder", "GMTAGS_RULESETS"),
            ("GMTAGS_MAX_BODY", "12", "GMTAGS_MAX_BODY"),
            ("GMTAGS_UPSTREAM_TIMEOUT", "0", "GMTAGS_UPSTREAM_TIMEOUT"),
            ("GMTAGS_WORKERS", "0", "GMTAGS_WORKERS"),
        ],
    )
    def test_a_bad_environment_value_names_its_variable(
        self, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
    ) -> None:
        """A bad value from the environment is a usage error (exit 2) naming the variable."""
        monkeypatch.setenv("GMTAGS_RULESET", RULESET)
        monkeypatch.setenv("GMTAGS_UPSTREAM", UPSTREAM)
        monkeypatch.setenv(variable, value)
        ran = serve("--print-config")
        assert ran.returncode == 2 and f"Error: {named}: " in ran.stderr, ran.stderr
        assert "Traceback" not in ran.stderr

    def test_a_bad_file_value_names_the_key_and_the_file(self, tmp_path: Path) -> None:
        """`port = "x"` in the file: the key and the file are named, exit 2."""
        path = toml(tmp_path, 'port = "x"\n')
        ran = serve(*BASE, "--config", path, "--print-config")
        assert ran.returncode == 2 and f"port in {path}: " in ran.stderr

    def test_a_bad_flag_value_names_the_flag(self) -> None:
        """A flag's value click accepts but the settings refuse names the flag, exit 2."""
        ran = serve(*BASE, "--max-body", "10", "--print-config")
        assert ran.returncode == 2 and "--max-body: " in ran.stderr

    def test_a_file_that_does_not_parse_exits_1_with_its_line(self, tmp_path: Path) -> None:
        """Broken TOML: exit 1, the file and the line, one message, no traceback."""
        path = toml(tmp_path, 'port = 8787\nhost = "127.0.0.1\n')
        ran = serve(*BASE, "--config", path, "--print-config")
        assert ran.returncode == 1 and f"{path}, line 2" in ran.stderr
        assert "Traceback" not in ran.stderr

    def test_a_missing_file_exits_1(self, tmp_path: Path) -> None:
        ran = serve(*BASE, "--config", str(tmp_path / "none.toml"))
        assert ran.returncode == 1 and "config file not found" in ran.stderr

    def test_unknown_keys_are_named(self, tmp_path: Path) -> None:
        """Every key that names no setting is listed; a dashed one gets its snake_case name."""
        path = toml(tmp_path, 'portt = 1\nupstream-key-env = "K"\n')
        ran = serve(*BASE, "--config", path, "--print-config")
        assert ran.returncode == 2
        assert "portt" in ran.stderr and "upstream-key-env (did you mean upstream_key_env?)" in (
            ran.stderr
        )

    def test_missing_required_settings(self) -> None:
        """No ruleset and no upstream anywhere: both are named with the three ways to give them."""
        ran = serve("--print-config")
        assert ran.returncode == 2
        assert "no ruleset: give --ruleset, set GMTAGS_RULESET" in ran.stderr
        assert "no upstream: give --upstream, set GMTAGS_UPSTREAM" in ran.stderr

    def test_the_key_variable_must_be_set(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """--upstream-key-env NAME with NAME unset or empty is a usage error naming NAME."""
        ran = serve(*BASE, "--upstream-key-env", "NO_SUCH_KEY_VAR")
        assert ran.returncode == 2 and "NO_SUCH_KEY_VAR, which is not set" in ran.stderr
        monkeypatch.setenv("EMPTY_KEY_VAR", "")
        ran = serve(*BASE, "--upstream-key-env", "EMPTY_KEY_VAR")
        assert ran.returncode == 2 and "EMPTY_KEY_VAR, which is empty" in ran.stderr

    def test_the_key_itself_is_refused_and_never_echoed(self) -> None:
        """A key given where its variable's name goes is refused without being printed."""
        ran = serve(*BASE, "--upstream-key-env", "sk-proj-Abc123-secret")
        assert ran.returncode == 2 and "never the key itself" in ran.stderr
        assert "Abc123" not in ran.stderr + ran.stdout

    def test_a_blank_token_is_never_echoed(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("GMTAGS_TOKEN", "   ")
        ran = serve(*BASE, "--print-config")
        assert ran.returncode == 2 and "GMTAGS_TOKEN: must not be blank" in ran.stderr

    @pytest.mark.parametrize(
        ("given", "message"),
        [
            ({"host": "0.0.0.0"}, "--host 0.0.0.0 lets other machines in"),
            ({"workers": 2, "db": ":memory:"}, "several workers share a history file"),
            ({"prompt_marker": "{{x}}", "turn_marker": "{{x}}"}, "are the same marker"),
        ],
    )
    def test_settings_that_do_not_go_together(self, given: dict[str, Any], message: str) -> None:
        """The rules between settings name each setting's origin."""
        with pytest.raises(SettingsError, match=re.escape(message)) as raised:
            load_settings({"ruleset": RULESET, "upstream": UPSTREAM, **given})
        assert raised.value.exit_code == 2

    def test_the_host_rule_names_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Beyond loopback without a token, the host's variable is named when it set it."""
        monkeypatch.setenv("GMTAGS_HOST", "0.0.0.0")
        ran = serve(*BASE)
        assert ran.returncode == 2 and "GMTAGS_HOST 0.0.0.0 lets other machines in" in ran.stderr

    def test_no_message_names_a_spec_section(self, tmp_path: Path) -> None:
        """What a user reads names no SPEC section."""
        path = toml(tmp_path, "nope = 1\n")
        for ran in (serve("--print-config"), serve(*BASE, "--config", path)):
            assert "§" not in ran.stderr and "SPEC" not in ran.stderr
