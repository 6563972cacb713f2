"""`gmtags sillytavern install ST_DIR`: put the SillyTavern extension where SillyTavern loads it.

SillyTavern 1.12.6 loads a third-party extension from the user's data folder,
`<dataRoot>/<user>/extensions/<folder>/` (`dataRoot: ./data` in its
`config.yaml`), served at `/scripts/extensions/third-party/<folder>/`
(docs/sillytavern-extension.md lists the source lines). The extension ships
inside the package as `gmtags/_clients/sillytavern` (a wheel's force-include)
and lives in a checkout as `clients/sillytavern`.

The install copies the extension beside the old copy and swaps it in, so a
failed copy leaves the old one working; it never writes through a symbolic
link that leads out of the SillyTavern folder (a link in the old copy's place
is removed, never followed).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path

import click

from gmtags.commands.common import fail

FOLDER = "gmtags"
"""The extension's folder name under SillyTavern's third-party extensions."""

SILLYTAVERN_ORIGIN = "http://127.0.0.1:8000"
"""SillyTavern's address when it runs with its defaults (the origin gmtags must allow)."""

_USER = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
"""A SillyTavern user handle (lower case letters, digits and dashes)."""

_SKIPPED = shutil.ignore_patterns("__pycache__", ".*")


def extension_source() -> Path:
    """The extension's folder: inside the installed package, else the checkout's."""
    here = Path(__file__).resolve().parent.parent  # the gmtags package
    for candidate in (here / "_clients" / "sillytavern", here.parent / "clients" / "sillytavern"):
        if (candidate / "manifest.json").is_file():
            return candidate
    raise FileNotFoundError("the SillyTavern extension is missing from this gmtags installation")


def sillytavern_problem(st_dir: Path) -> str | None:
    """Why `st_dir` is not a SillyTavern folder, or None."""
    if not st_dir.is_dir():
        return f"{st_dir} is not a folder"
    try:
        package = json.loads((st_dir / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        package = None
    if not isinstance(package, dict) or str(package.get("name", "")).lower() != "sillytavern":
        return f"{st_dir} is not a SillyTavern folder (its package.json does not name sillytavern)"
    if not (st_dir / "public" / "scripts" / "extensions").is_dir():
        return f"{st_dir} is not a SillyTavern folder (it has no public/scripts/extensions)"
    return None


def _inside(path: Path, root: Path) -> bool:
    return path.resolve() == root or root in path.resolve().parents


def install_extension(st_dir: Path, user: str, data_root: Path | None = None) -> Path:
    """Copy the extension into `st_dir`'s data folder (or `data_root`, SillyTavern's
    `--dataRoot`) for `user`; returns where it went.

    Raises ValueError with a message for the player when it cannot.
    """
    problem = sillytavern_problem(st_dir)
    if problem:
        raise ValueError(problem)
    if not _USER.fullmatch(user):
        raise ValueError(f"{user!r} is not a SillyTavern user handle (such as default-user)")
    root = st_dir.resolve() if data_root is None else data_root.resolve()
    data = root / "data" if data_root is None else root
    user_dir = data / user
    if not user_dir.exists() and user != "default-user":
        known = sorted(p.name for p in data.iterdir() if p.is_dir()) if data.is_dir() else []
        raise ValueError(
            f"SillyTavern has no user {user!r} in {data}"
            + (f" (it has: {', '.join(known)})" if known else "")
        )
    extensions = user_dir / "extensions"
    for step in (data, user_dir, extensions):
        if step.is_symlink() and not _inside(step, root):
            raise ValueError(f"{step} is a link out of {root}: not writing through it")
    extensions.mkdir(parents=True, exist_ok=True)
    if not _inside(extensions, root):
        raise ValueError(f"{extensions} lies outside {root}: not writing there")
    target = extensions / FOLDER
    staging = Path(tempfile.mkdtemp(prefix=f".{FOLDER}-new-", dir=extensions))
    try:
        shutil.copytree(extension_source(), staging / FOLDER, ignore=_SKIPPED)
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
        (staging / FOLDER).rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def next_steps(target: Path) -> str:
    """What the player sets after installing."""
    return "\n".join(
        [
            f"Installed the gmtags extension in {target}",
            "Next:",
            "  1. Start gmtags so SillyTavern's page may call it:",
            "       gmtags serve --ruleset R.json --upstream URL \\",
            f"         --allow-origin {SILLYTAVERN_ORIGIN}",
            "     (use the address you open SillyTavern at, e.g. http://localhost:8000).",
            "  2. Reload SillyTavern; in Extensions, open gmtags: set the gmtags URL",
            "     (http://127.0.0.1:8787) and the token if gmtags serve has --token.",
            "  3. Press Connect: SillyTavern's Chat Completion (Custom) or Text Completion",
            "     (the selected backend's server URL) then talks to gmtags. With Text",
            "     Completion, start gmtags serve with --upstream set to that backend's URL",
            "     (Connect shows it), and put {{gmtags}} in your System Prompt where the GM",
            "     instructions belong.",
        ]
    )


HIDE_RECEIPTS = "sillytavern-hide-receipts.json"
"""The regex script that hides receipts in a SillyTavern without the extension."""


@click.group("sillytavern")
def sillytavern() -> None:
    """Play inside SillyTavern with the gmtags extension."""


@sillytavern.command("regex")
def regex_command() -> None:
    """Print the regex script that hides receipts in a SillyTavern without the extension
    (save it to a file and import it in SillyTavern's Regex extension)."""
    script = resources.files("gmtags.server").joinpath(HIDE_RECEIPTS)
    click.echo(script.read_text(encoding="utf-8"), nl=False)


@sillytavern.command("install")
@click.argument("st_dir", metavar="ST_DIR", type=click.Path(path_type=Path))
@click.option(
    "--user", default="default-user", show_default=True, help="The SillyTavern user to install for."
)
@click.option(
    "--data-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="SillyTavern's data folder when it is not ST_DIR/data (its --dataRoot).",
)
def install_command(st_dir: Path, user: str, data_root: Path | None) -> None:
    """Copy the extension into SillyTavern's folder ST_DIR (an older copy is replaced)."""
    try:
        target = install_extension(st_dir, user, data_root)
    except (ValueError, OSError) as error:
        fail(str(error))
    click.echo(next_steps(target))
