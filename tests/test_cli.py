"""The command line (SPEC §1): outputs, exit codes, and no tracebacks."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import click
import httpx
import pytest

from gmtags.cli import main
from gmtags.demo import demo_file
from tests.conftest import FIXTURES, REFERENCE_RULESETS, Ran, invoke

RULESET = str(FIXTURES / "rulesets" / "clocks-default.json")


def gmtags(*args: str, stdin: str = "") -> Ran:
    """`gmtags ARGS` run in this process."""
    return invoke(main, *args, stdin=stdin)


class TestSmoke:
    def test_the_console_script_runs(self) -> None:
        """One real interpreter: the entry point validates a ruleset and exits 0."""
        out = subprocess.run(
            [sys.executable, "-c", "from gmtags.cli import run; run()", "validate", RULESET],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0 and out.stdout.startswith("ok: ")


class TestProcessCommand:
    def test_receipts_from_stdin(self) -> None:
        """`process` reads stdin and prints the reply with receipts."""
        out = gmtags(
            "process", "--ruleset", RULESET, "--seed", "1", stdin='a [clock: name="A" size="4"]'
        )
        assert out.returncode == 0
        assert out.stdout == 'a [clock: name="A" size="4" result="ok" now="0/4"]'

    def test_line_endings_survive_byte_for_byte(self, tmp_path: Path) -> None:
        """A reply with Windows line endings, from a file or stdin, comes out with them: no
        newline translation on the way in (one real interpreter, bytes compared)."""
        reply = tmp_path / "reply.txt"
        reply.write_bytes(b'Bell.\r\n[clock: name="A" size="4"]\r\nRun.\r')
        expected = b'Bell.\r\n[clock: name="A" size="4" result="ok" now="0/4"]\r\nRun.\r'
        command = [sys.executable, "-c", "from gmtags.cli import run; run()", "process"]
        command += ["--ruleset", RULESET, "--seed", "1"]
        from_file = subprocess.run([*command, str(reply)], capture_output=True, check=False)
        from_stdin = subprocess.run(
            command, input=reply.read_bytes(), capture_output=True, check=False
        )
        assert from_file.stdout == expected and from_stdin.stdout == expected

    def test_stdin_that_is_not_utf8_exits_1(self) -> None:
        """Bytes on stdin that are not UTF-8: one line naming stdin, exit 1."""
        command = [sys.executable, "-c", "from gmtags.cli import run; run()", "process"]
        out = subprocess.run(
            [*command, "--ruleset", RULESET],
            input=b"\xff\xfe bad",
            capture_output=True,
            check=False,
        )
        assert out.returncode == 1 and b"not UTF-8" in out.stderr and b"Traceback" not in out.stderr

    def test_display_and_state_out(self, tmp_path: Path) -> None:
        """--display hides tags; --state-out writes the snapshot after the reply."""
        reply = tmp_path / "reply.txt"
        reply.write_text('Bell.\n[clock: name="A" size="4"]\nRun.')
        state = tmp_path / "out.json"
        out = gmtags(
            "process", "--ruleset", RULESET, "--display", "--state-out", str(state), str(reply)
        )
        assert out.returncode == 0 and out.stdout == "Bell.\nRun."
        assert json.loads(state.read_text()) == {
            "rulesetClocks": [{"name": "A", "size": 4, "filled": 0}]
        }

    def test_state_in(self, tmp_path: Path) -> None:
        """--state starts from a saved snapshot."""
        state = tmp_path / "s.json"
        state.write_text(json.dumps({"rulesetClocks": [{"name": "A", "size": 4, "filled": 3}]}))
        out = gmtags(
            "process",
            "--ruleset",
            RULESET,
            "--state",
            str(state),
            "--cards",
            stdin='[clock: name="A" tick="1"]',
        )
        assert out.stdout == "🕒 **A** 4/4 full"

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--ruleset", "/nonexistent.json"], "ruleset file not found"),
            (["--ruleset", RULESET, "--state", "/nonexistent.json"], "state file not found"),
            (["--ruleset", RULESET, "/nonexistent.txt"], "input file not found"),
        ],
    )
    def test_missing_files_exit_1(self, args: list[str], message: str) -> None:
        """A missing file is invalid input: exit 1 and one clear line, no traceback."""
        out = gmtags("process", *args)
        assert out.returncode == 1
        assert message in out.stderr and "Traceback" not in out.stderr

    def test_bad_state_names_the_path(self, tmp_path: Path) -> None:
        """An invalid snapshot exits 1 naming the bad path."""
        state = tmp_path / "s.json"
        state.write_text(json.dumps({"rulesetClocks": [{"name": "A", "size": 4, "filled": 9}]}))
        out = gmtags("process", "--ruleset", RULESET, "--state", str(state))
        assert out.returncode == 1 and "rulesetClocks.0" in out.stderr

    def test_bad_json_state(self, tmp_path: Path) -> None:
        """A state file that is not JSON exits 1 with the line and column."""
        state = tmp_path / "s.json"
        state.write_text("{")
        out = gmtags("process", "--ruleset", RULESET, "--state", str(state))
        assert out.returncode == 1 and "not valid JSON" in out.stderr

    def test_usage_error_exit_2(self) -> None:
        """A missing required option is a usage error: exit 2."""
        assert gmtags("process").returncode == 2
        assert gmtags("process", "--ruleset", RULESET, "--display", "--cards").returncode == 2


class TestValidateCommand:
    def test_valid(self) -> None:
        """A ruleset that imports exits 0."""
        out = gmtags("validate", str(REFERENCE_RULESETS / "gravewatch.json"))
        assert out.returncode == 0 and "Gravewatch" in out.stdout

    def test_invalid_lists_every_path(self, tmp_path: Path) -> None:
        """An invalid ruleset exits 1 listing every error with its path."""
        data = json.loads(Path(RULESET).read_text())
        data["version"] = 0
        data["clocks"] = {"max": 99}
        path = tmp_path / "r.json"
        path.write_text(json.dumps(data))
        out = gmtags("validate", str(path))
        assert out.returncode == 1
        assert "version:" in out.stderr and "clocks.max:" in out.stderr
        assert "Traceback" not in out.stderr

    def test_not_json(self, tmp_path: Path) -> None:
        """A ruleset file that is not JSON exits 1."""
        path = tmp_path / "r.json"
        path.write_text("not json")
        out = gmtags("validate", str(path))
        assert out.returncode == 1 and "not valid JSON" in out.stderr

    def test_folder_instead_of_file(self, tmp_path: Path) -> None:
        """A folder given as the ruleset exits 1 with a clear message."""
        out = gmtags("validate", str(tmp_path))
        assert out.returncode == 1 and "folder" in out.stderr


class TestDemoCommand:
    def test_demo_shows_the_reply_as_a_player_sees_it(self) -> None:
        """`gmtags demo` prints the display narration, the cards and the receipts."""
        out = gmtags("demo")
        assert out.returncode == 0
        assert "What the player reads" in out.stdout
        assert 'result="ok" now="2/6"' in out.stdout
        assert "🕒 **Alarm raised** 2/6" in out.stdout

    def test_demo_serve_lets_an_allowed_origin_call_it(self, tmp_path: Path) -> None:
        """`gmtags demo --serve --allow-origin O` answers O's preflight (the SillyTavern
        extension's page), and refuses another origin's."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        extension = "http://127.0.0.1:8000"
        served = subprocess.Popen(
            [sys.executable, "-c", "from gmtags.cli import run; run()", "demo", "--serve",
             "--port", str(port), "--allow-origin", extension],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}/gmtags/api/chats"
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1.0)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline and served.poll() is None
                    time.sleep(0.1)
            ask = {"Access-Control-Request-Method": "GET"}
            allowed = httpx.options(url, headers={**ask, "Origin": extension})
            assert allowed.status_code == 204
            assert allowed.headers["access-control-allow-origin"] == extension
            other = httpx.options(url, headers={**ask, "Origin": "http://127.0.0.1:9999"})
            assert other.status_code == 403
        finally:
            served.terminate()
            served.wait(10)

    def test_demo_serve_prints_pages_that_answer(self, tmp_path: Path) -> None:
        """`gmtags demo --serve` prints the proxy, the chat list, the demo chat's page and its
        builder page, and each answers 200 at once (a base URL: its /models)."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        served = subprocess.Popen(
            [sys.executable, "-m", "gmtags.cli", "demo", "--serve", "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=tmp_path,
        )  # fmt: skip
        try:
            assert served.stdout is not None
            lines = []
            while not lines or "the scripted model:" not in lines[-1]:
                line = served.stdout.readline()
                assert line, f"gmtags demo --serve stopped: {lines}"
                lines.append(line)
            urls = re.findall(r"http://\S+", "".join(lines))
            base = f"http://127.0.0.1:{port}"
            for page in ["/v1", "/gmtags/", "/gmtags/chats/", "/gmtags/builder?chat="]:
                assert any(url.startswith(base + page) for url in urls), (page, urls)
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"{base}/healthz", timeout=1.0)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline and served.poll() is None
                    time.sleep(0.1)
            for url in urls:
                asked = f"{url}/models" if url.endswith("/v1") else url
                assert httpx.get(asked, timeout=10).status_code == 200, asked
        finally:
            served.terminate()
            served.wait(10)

    def test_the_demo_builder_builds_the_demo_character(self) -> None:
        """The demo's builder can build Bram the Quiet of the bundled state, as it stands."""
        from gmtags import Snapshot, build_character
        from gmtags.server.demo import demo_ruleset

        ruleset = demo_ruleset(builder=True)
        start = json.loads(demo_file("state.json").read_text(encoding="utf-8"))
        bram = start["gameCharacterCards"]["Bram the Quiet"]
        answers = {
            "v": 1,
            "steps": {"stats": {"method": "pointBuy", "scores": bram["abilities"]}},
            "choices": {"training/watch": ["ward"]},
        }
        built = build_character(ruleset, answers)
        assert all(count == 0 for count in built.pending.values())
        card = {key: built.card[key] for key in ("abilities", "skills")}
        assert card == bram
        Snapshot.model_validate({"gameCharacterCards": {"Bram": built.card}})

    def test_demo_allow_origin_goes_with_serve(self) -> None:
        """--allow-origin without --serve, or one that is no origin, is refused."""
        alone = gmtags("demo", "--allow-origin", "http://127.0.0.1:8000")
        assert alone.returncode == 2 and "--allow-origin goes with --serve" in alone.stderr
        refused = gmtags("demo", "--serve", "--allow-origin", "*")
        assert refused.returncode == 2 and "--allow-origin" in refused.stderr

    def test_demo_builds_a_character_from_answers_that_plays(self) -> None:
        """The demo's second half: the bundled answers build a 5e wizard whose builder-trained
        Arcana (+4: Int 15 and proficiency) plays a check."""
        out = gmtags("demo").stdout
        assert "A character built from answers (gmtags character build)" in out
        assert "  Trained: Arcana +4, History +4" in out
        assert "Badges: every step done" in out
        assert 'skill="Arcana" dc="12"' in out and 'modifier="4"' in out

    def test_the_demo_builder_files_are_the_fixtures(self) -> None:
        """The wheel's copies of the 5e builder sample and its answers are the tested fixtures."""
        pairs = [
            ("builder-ruleset.json", FIXTURES / "rulesets" / "builder" / "5e-builder.json"),
            ("builder-answers.json", FIXTURES / "answers" / "5e-half-elf-wizard.json"),
        ]
        for name, fixture in pairs:
            bundled = demo_file(name).read_text(encoding="utf-8")
            assert bundled == fixture.read_text(encoding="utf-8"), name

    def test_verbose_logs_to_stderr(self) -> None:
        """-v logs one command.applied event per command to stderr, none to stdout."""
        out = gmtags("-v", "demo")
        assert out.stderr.count("event='command.applied'") == 8  # 7 in the reply, 1 check
        assert "command.applied" not in out.stdout


SPEC_OR_SEED = re.compile(r"§|\bSPEC\b|\b0\d\d\b")
"""A SPEC section (`§7`, `SPEC §10`) or a seed file's number (`000`, `004`): words for the
project's own documents, never for what a user reads."""


def command_paths(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand under `group`, as the words that run it."""
    ctx = click.Context(group)
    found = [path]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            found += command_paths(command, (*path, name))
        else:
            found.append((*path, name))
    return found


class TestHelp:
    def test_every_command_is_walked(self) -> None:
        """The walk reaches the subcommands of character, transcript and sillytavern."""
        paths = command_paths(main)
        for wanted in [("character", "build"), ("transcript", "state"), ("sillytavern", "install")]:
            assert wanted in paths

    @pytest.mark.parametrize("path", command_paths(main), ids=" ".join)
    def test_help_names_no_spec_section_or_seed(self, path: tuple[str, ...]) -> None:
        """No `--help` names a SPEC section or a seed file's number."""
        out = gmtags(*path, "--help")
        assert out.returncode == 0, out.stderr
        assert not SPEC_OR_SEED.findall(out.stdout), out.stdout

    def test_version(self) -> None:
        """`gmtags --version` prints `gmtags <version>`."""
        from gmtags import __version__

        out = gmtags("--version")
        assert (out.returncode, out.stdout) == (0, f"gmtags {__version__}\n")
