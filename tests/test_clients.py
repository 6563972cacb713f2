"""`gmtags sillytavern install` puts the extension where SillyTavern loads it (SPEC §13)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from gmtags.cli import main
from gmtags.commands.sillytavern import extension_source, install_extension, sillytavern_problem
from tests.conftest import ROOT

EXTENSION_FILES = {"manifest.json", "index.js", "style.css", "lib/receipts.js", "lib/cards.js"}


def make_sillytavern(root: Path) -> Path:
    """A folder laid out like SillyTavern 1.12.6 after its first start."""
    (root / "public" / "scripts" / "extensions").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "sillytavern", "version": "1.12.6"}))
    (root / "data" / "default-user").mkdir(parents=True)
    return root


def installed(root: Path, user: str = "default-user") -> Path:
    return root / "data" / user / "extensions" / "gmtags"


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


class TestExtensionSource:
    def test_checkout_copy_is_found(self) -> None:
        """In a checkout the extension is read from clients/sillytavern."""
        assert extension_source() == ROOT / "clients" / "sillytavern"

    def test_manifest_names_the_module_and_style(self) -> None:
        """The manifest points SillyTavern at index.js and style.css, which exist."""
        manifest = json.loads((extension_source() / "manifest.json").read_text())
        assert manifest["display_name"] == "gmtags"
        assert (extension_source() / manifest["js"]).is_file()
        assert (extension_source() / manifest["css"]).is_file()


class TestInstall:
    def test_copies_the_extension(self, tmp_path: Path) -> None:
        """The extension lands in data/<user>/extensions/gmtags with its lib modules."""
        st = make_sillytavern(tmp_path / "st")
        result = CliRunner().invoke(main, ["sillytavern", "install", str(st)])
        assert result.exit_code == 0, result.output
        assert files_under(installed(st)) >= EXTENSION_FILES
        assert "--allow-origin http://127.0.0.1:8000" in result.output
        assert "Connect" in result.output

    def test_installs_into_another_data_root(self, tmp_path: Path) -> None:
        """With --data-root (SillyTavern's --dataRoot) the extension goes there, not ST_DIR/data."""
        st = make_sillytavern(tmp_path / "st")
        data = tmp_path / "elsewhere"
        data.mkdir()
        arguments = ["sillytavern", "install", str(st), "--data-root", str(data)]
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code == 0, result.output
        assert files_under(data / "default-user" / "extensions" / "gmtags") >= EXTENSION_FILES
        assert not installed(st).exists()

    def test_replaces_an_older_copy(self, tmp_path: Path) -> None:
        """A file of an older copy that the new one lacks is gone; no staging folder is left."""
        st = make_sillytavern(tmp_path / "st")
        old = installed(st)
        old.mkdir(parents=True)
        (old / "stale.js").write_text("old")
        (old / "index.js").write_text("old")
        install_extension(st, "default-user")
        assert not (old / "stale.js").exists()
        assert (old / "index.js").read_text() != "old"
        assert [p.name for p in old.parent.iterdir()] == ["gmtags"]

    def test_installs_for_another_user(self, tmp_path: Path) -> None:
        """--user names the SillyTavern user whose data folder gets it."""
        st = make_sillytavern(tmp_path / "st")
        (st / "data" / "ada").mkdir()
        result = CliRunner().invoke(main, ["sillytavern", "install", str(st), "--user", "ada"])
        assert result.exit_code == 0, result.output
        assert (installed(st, "ada") / "manifest.json").is_file()

    def test_first_start_not_yet_made_the_user_folder(self, tmp_path: Path) -> None:
        """A SillyTavern never started gets default-user's extensions folder made."""
        st = make_sillytavern(tmp_path / "st")
        (st / "data" / "default-user").rmdir()
        install_extension(st, "default-user")
        assert (installed(st) / "index.js").is_file()


class TestRefusals:
    def test_refuses_a_folder_that_is_not_sillytavern(self, tmp_path: Path) -> None:
        """A folder without SillyTavern's package.json is refused with a clear line."""
        (tmp_path / "package.json").write_text(json.dumps({"name": "something-else"}))
        result = CliRunner().invoke(main, ["sillytavern", "install", str(tmp_path)])
        assert result.exit_code == 1
        assert "is not a SillyTavern folder" in result.output
        assert not (tmp_path / "data").exists()

    def test_refuses_a_missing_folder(self, tmp_path: Path) -> None:
        """A path that does not exist is named in the refusal."""
        assert sillytavern_problem(tmp_path / "nope") == f"{tmp_path / 'nope'} is not a folder"

    def test_refuses_an_unknown_user_and_lists_the_known(self, tmp_path: Path) -> None:
        """A user SillyTavern does not have is refused, naming the ones it has."""
        st = make_sillytavern(tmp_path / "st")
        result = CliRunner().invoke(main, ["sillytavern", "install", str(st), "--user", "bob"])
        assert result.exit_code == 1
        assert "no user 'bob'" in result.output
        assert "default-user" in result.output

    @pytest.mark.parametrize("user", ["../outside", "a/b", "Default User", ""])
    def test_refuses_a_user_that_is_not_a_handle(self, tmp_path: Path, user: str) -> None:
        """A handle that could walk out of the data folder is refused."""
        st = make_sillytavern(tmp_path / "st")
        with pytest.raises(ValueError, match="user handle"):
            install_extension(st, user)

    def test_never_writes_through_a_link_out_of_sillytavern(self, tmp_path: Path) -> None:
        """An extensions folder that links elsewhere is refused and nothing is written there."""
        st = make_sillytavern(tmp_path / "st")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (st / "data" / "default-user" / "extensions").symlink_to(elsewhere)
        with pytest.raises(ValueError, match="link out of"):
            install_extension(st, "default-user")
        assert list(elsewhere.iterdir()) == []

    def test_a_link_in_the_old_copys_place_is_removed_not_followed(self, tmp_path: Path) -> None:
        """A symbolic link named gmtags is replaced by the copy; what it pointed at is untouched."""
        st = make_sillytavern(tmp_path / "st")
        precious = tmp_path / "precious"
        precious.mkdir()
        (precious / "keep.txt").write_text("mine")
        extensions = st / "data" / "default-user" / "extensions"
        extensions.mkdir()
        (extensions / "gmtags").symlink_to(precious)
        install_extension(st, "default-user")
        assert (precious / "keep.txt").read_text() == "mine"
        assert not installed(st).is_symlink()
        assert (installed(st) / "manifest.json").is_file()


@pytest.mark.slow
class TestWheel:
    def test_the_extension_ships_in_the_wheel(self, tmp_path: Path) -> None:
        """The wheel carries the extension as gmtags/_clients/sillytavern."""
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--quiet",
                "-w",
                str(tmp_path),
                str(ROOT),
            ],
            check=True,
        )
        (wheel,) = tmp_path.glob("gmtags-*.whl")
        names = set(zipfile.ZipFile(wheel).namelist())
        assert {f"gmtags/_clients/sillytavern/{name}" for name in EXTENSION_FILES} <= names
