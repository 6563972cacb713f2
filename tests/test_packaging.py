"""The built wheel carries the grammar and works from another folder (issue: foundation)."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
    )
    (path,) = out.glob("gmtags-*.whl")
    return path


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

    def test_installed_package_processes_from_another_folder(
        self, wheel: Path, tmp_path: Path
    ) -> None:
        """`pip install` into a fresh venv, then gmtags.process works outside the repo."""
        env_dir = tmp_path / "venv"
        venv.create(env_dir, with_pip=True)
        python = env_dir / "bin" / "python"
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                str(wheel),
            ],
            check=True,
        )
        script = (
            "import gmtags, json, importlib.resources as r\n"
            "rs = json.loads(r.files('gmtags.demo').joinpath('ruleset.json').read_text())\n"
            'tag = \'[clock: name="A" size="4"]\'\n'
            "res = gmtags.process(tag, gmtags.load_ruleset(rs), seed=1)\n"
            "print(res.text)\n"
            "print(gmtags.__file__)\n"
        )
        out = subprocess.run(
            [str(python), "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        text, location = out.stdout.splitlines()
        assert text == '[clock: name="A" size="4" result="ok" now="0/4"]'
        assert str(ROOT) not in location
