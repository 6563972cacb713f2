"""The sdist and the wheel install and run with no repository files around (SPEC §14).

`python -m build` makes the sdist, then the wheel from that sdist (so a wheel here proves
the sdist builds one); the wheel goes, with its `postgres` and `dask` extras, into a fresh
virtual environment whose dependencies come from the machine's pip configuration. Every
command then runs in a temporary folder, with no `GMTAGS_` variable of the caller's.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
EXTENSION = ROOT / "clients" / "sillytavern"
STARTUP_SECONDS = 30.0


@dataclass(frozen=True)
class Dist:
    """What `python -m build` made: the sdist and the wheel built from it."""

    sdist: Path
    wheel: Path


@dataclass(frozen=True)
class Installed:
    """A fresh virtual environment holding the wheel, and a folder outside the repository."""

    bin: Path
    folder: Path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """One of the environment's programs, run in `folder` without the caller's GMTAGS_*."""
        program, *rest = args
        return subprocess.run(
            [str(self.bin / program), *rest],
            cwd=self.folder,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=check,
        )


def clean_env() -> dict[str, str]:
    """This process's environment without GMTAGS_* (a developer's token must not leak in)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GMTAGS_")}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (sdist,) = out.glob("gmtags-*.tar.gz")
    (wheel,) = out.glob("gmtags-*.whl")
    return Dist(sdist, wheel)


@pytest.fixture(scope="module")
def wheel(dist: Dist) -> Path:
    return dist.wheel


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    subprocess.run(
        [
            str(bin_dir / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"{wheel}[postgres,dask]",
        ],
        check=True,
        timeout=300,
    )
    return Installed(bin_dir, tmp_path_factory.mktemp("elsewhere"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def served(installed: Installed) -> Iterator[str]:
    """`gmtags serve` of the installed package on the demo ruleset it ships; its base URL."""
    ruleset = installed.run(
        "python",
        "-c",
        "import importlib.resources as r; print(r.files('gmtags.demo') / 'ruleset.json')",
    ).stdout.strip()
    port = _free_port()
    command = [str(installed.bin / "gmtags"), "serve", "--ruleset", ruleset, "--port", str(port)]
    command += ["--upstream", "http://127.0.0.1:9/v1"]
    server = subprocess.Popen(
        command,
        cwd=installed.folder,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if server.poll() is not None:
                said = server.stderr.read() if server.stderr else ""
                pytest.fail(f"gmtags serve stopped: {said}")
            try:
                if _get(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"gmtags serve did not answer /healthz in {STARTUP_SECONDS} s")
            time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.slow
class TestWheel:
    def test_grammar_is_inside(self, wheel: Path) -> None:
        """grammar/gmtags.lark ships inside the package, with py.typed and the demo files."""
        names = set(zipfile.ZipFile(wheel).namelist())
        assert {
            "gmtags/grammar/gmtags.lark",
            "gmtags/py.typed",
            "gmtags/demo/ruleset.json",
            "gmtags/demo/builder-ruleset.json",
            "gmtags/demo/builder-answers.json",
        } <= names

    def test_static_files_of_the_pages_are_inside(self, wheel: Path) -> None:
        """The pages' style and script (SPEC §11) ship in the wheel, served from the package."""
        names = set(zipfile.ZipFile(wheel).namelist())
        static = ROOT / "gmtags" / "server" / "static"
        shipped = {
            f"gmtags/{path.relative_to(ROOT / 'gmtags').as_posix()}"
            for path in static.rglob("*")
            if path.is_file()
        }
        ours = {
            "gmtags/server/static/base.css",
            "gmtags/server/static/state/state.css",
            "gmtags/server/static/state/state.js",
        }
        assert ours <= shipped <= names

    def test_sillytavern_extension_is_inside(self, wheel: Path) -> None:
        """Every file of clients/sillytavern ships as gmtags/_clients/sillytavern."""
        names = set(zipfile.ZipFile(wheel).namelist())
        extension = {
            f"gmtags/_clients/sillytavern/{path.relative_to(EXTENSION).as_posix()}"
            for path in EXTENSION.rglob("*")
            if path.is_file()
        }
        assert "gmtags/_clients/sillytavern/manifest.json" in extension
        assert extension <= names

    def test_wheel_names_the_version_of_pyproject(self, wheel: Path) -> None:
        """The wheel's file name and metadata carry pyproject.toml's version."""
        assert wheel.name == f"gmtags-{VERSION}-py3-none-any.whl"
        metadata = zipfile.ZipFile(wheel).read(f"gmtags-{VERSION}.dist-info/METADATA").decode()
        assert f"\nVersion: {VERSION}\n" in metadata


@pytest.mark.slow
class TestSdist:
    def test_holds_what_the_wheel_is_built_from(self, dist: Dist) -> None:
        """The sdist carries pyproject.toml, the grammar and the extension the wheel needs
        (python -m build made the wheel from it)."""
        with tarfile.open(dist.sdist) as sdist:
            names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
        assert {
            "pyproject.toml",
            "README.md",
            "grammar/gmtags.lark",
            "clients/sillytavern/manifest.json",
            "gmtags/demo/ruleset.json",
        } <= names
        assert not any("__pycache__" in name for name in names)


@pytest.mark.slow
class TestInstalled:
    def test_version(self, installed: Installed) -> None:
        """`gmtags --version`, gmtags.__version__ and the installed metadata all say
        pyproject.toml's version."""
        assert installed.run("gmtags", "--version").stdout.split() == ["gmtags", VERSION]
        script = (
            "import gmtags, importlib.metadata as m\n"
            "print(gmtags.__version__, m.version('gmtags'))\n"
        )
        assert installed.run("python", "-c", script).stdout.split() == [VERSION, VERSION]

    def test_extras_import(self, installed: Installed) -> None:
        """The postgres and dask extras installed their libraries."""
        installed.run("python", "-c", "import psycopg, psycopg_pool, distributed")

    def test_demo_prints(self, installed: Installed) -> None:
        """`gmtags demo` plays the bundled demo from the package's own files."""
        out = installed.run("gmtags", "demo").stdout
        assert out.startswith("gmtags demo: ruleset 'Lantern Watch', seed 7\n")
        assert "What the player reads" in out

    def test_processes_from_another_folder(self, installed: Installed) -> None:
        """gmtags.process works from the installed package, not the repository's files."""
        script = (
            "import gmtags, json, importlib.resources as r\n"
            "rs = json.loads(r.files('gmtags.demo').joinpath('ruleset.json').read_text())\n"
            'tag = \'[clock: name="A" size="4"]\'\n'
            "res = gmtags.process(tag, gmtags.load_ruleset(rs), seed=1)\n"
            "print(res.text)\n"
            "print(gmtags.__file__)\n"
        )
        text, location = installed.run("python", "-c", script).stdout.splitlines()
        assert text == '[clock: name="A" size="4" result="ok" now="0/4"]'
        assert str(ROOT) not in location

    def test_serve_answers_healthz(self, served: str) -> None:
        """`gmtags serve` on the packaged demo ruleset starts and answers /healthz."""
        assert _get(f"{served}/healthz") == (200, b"ok")

    def test_serve_pages_and_their_static_files(self, served: str) -> None:
        """The chats page renders from the package, and every style and script it links
        loads from the package too."""
        status, body = _get(f"{served}/gmtags/")
        assert status == 200
        page = body.decode()
        assert "<h1>Chats</h1>" in page
        linked = re.findall(r'(?:href|src)="(/gmtags/static/[^"]+)"', page)
        assert linked
        for path in linked:
            status, content = _get(f"{served}{path}")
            assert (path, status) == (path, 200)
            assert content

    def test_sillytavern_install_copies_the_packaged_extension(
        self, installed: Installed, tmp_path: Path
    ) -> None:
        """`gmtags sillytavern install` copies the extension the wheel carries, file for file."""
        st = tmp_path / "SillyTavern"
        (st / "public" / "scripts" / "extensions").mkdir(parents=True)
        (st / "package.json").write_text('{"name": "sillytavern"}', encoding="utf-8")
        out = installed.run("gmtags", "sillytavern", "install", str(st)).stdout
        target = st / "data" / "default-user" / "extensions" / "gmtags"
        assert f"Installed the gmtags extension in {target}" in out
        copied = {p.relative_to(target) for p in target.rglob("*") if p.is_file()}
        ours = {p.relative_to(EXTENSION) for p in EXTENSION.rglob("*") if p.is_file()}
        assert copied == ours
        for name in ours:
            assert (target / name).read_bytes() == (EXTENSION / name).read_bytes()
