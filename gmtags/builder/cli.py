"""`gmtags character build` and `gmtags character show` (SPEC §10).

- `build --ruleset R.json --answers A.json [--card C.json] [--out OUT.json]
  [--check]` writes the card the answers build (stdout without `--out`),
  lists every shown step with a badge above 0 on stderr, and exits 0 even
  then (Next never blocks); `--check` exits 1 while any badge is above 0.
- `show --ruleset R.json --card C.json [--name N]` prints the character as
  the GM's sheet block shows it, then its badges, rebuilt from the answers
  the card's builder record keeps.
- `new --ruleset R.json --out OUT.json [--card C.json] [--seed N]` is the
  terminal wizard (`gmtags.builder.wizard`): a card with builder answers is
  taken up where it was left; `w` writes OUT.json, `q` quits without writing.

Exit codes (SPEC §1): 0 done, 1 an invalid ruleset, answers or card (one
clear message naming the place), 2 usage. `--party` (the party builder) is a
later part of the builder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from gmtags.builder.answers import load_answers, read_answers
from gmtags.builder.build import BuildResult, build_character
from gmtags.builder.wizard import Wizard
from gmtags.cli_common import fail, guard, read_ruleset, rulesets_option
from gmtags.errors import AnswersError, Problem, RulesetError, SnapshotError, json_path
from gmtags.jsonfile import JsonTextError, dumps, loads
from gmtags.prompt.reminder import character_block
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import CharacterCard, Snapshot


@click.group("character")
def character() -> None:
    """Build a character with the ruleset's guided builder (SPEC §10)."""


def _read_card(path: str) -> dict[str, Any]:
    """`--card`: strict JSON holding one card (SPEC §4); exits 1 naming the place."""

    def load() -> dict[str, Any]:
        try:
            data = loads(Path(path).read_text(encoding="utf-8"))
        except JsonTextError as error:
            raise SnapshotError([Problem("(file)", str(error))]) from None
        if not isinstance(data, dict):
            raise SnapshotError([Problem("(root)", "a card is a JSON object")])
        try:
            CharacterCard.model_validate(data)
        except ValidationError as error:
            raise SnapshotError(
                Problem(json_path(item["loc"]), item["msg"]) for item in error.errors()
            ) from None
        return data

    return guard("card", path, load)


def _answers(path: str) -> Any:
    try:
        return guard("answers", path, lambda: load_answers(path))
    except AnswersError as error:  # guard knows rulesets and states; answers are named here
        lines = [f"  {problem}" for problem in error.problems]
        fail("\n".join([f"answers {path} are invalid:", *lines]))


def _build(ruleset: Ruleset, answers: Any, card: dict[str, Any] | None) -> BuildResult:
    try:
        return build_character(ruleset, answers, card)
    except AnswersError as error:
        fail("\n".join(["answers are invalid:", *(f"  {p}" for p in error.problems)]))
    except RulesetError as error:  # a ruleset without a builder
        lines = [f"  {p}" for p in error.problems]
        fail("\n".join(["ruleset cannot build a character:", *lines]))


def _badges(result: BuildResult) -> list[str]:
    """One line per shown step with a badge above 0: its id, the count and the reasons."""
    lines = []
    for step in result.steps:
        if step["shown"] and step["pending"] > 0:
            reasons = "; ".join(step["reasons"]) or "answers needed"
            lines.append(f"{step['id']}  {step['pending']} pending: {reasons}")
    return lines


@character.command("build")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--answers", "answers_path", required=True, help="The answers JSON (SPEC §10).")
@click.option("--card", "card_path", help="The card to build on (its hand-written values stay).")
@click.option("--out", "out_path", help="Write the card here instead of stdout.")
@click.option("--check", is_flag=True, help="Exit 1 while any step has a badge above 0.")
@click.option("--party", is_flag=True, help="Build the shared party sheet (not built yet).")
@rulesets_option
def build_command(
    ruleset_path: str,
    answers_path: str,
    card_path: str | None,
    out_path: str | None,
    check: bool,
    party: bool,
    rulesets: tuple[str, ...],
) -> None:
    """Build a character from an answers file and print (or --out) its card."""
    if party:
        raise click.UsageError("--party: the party builder is not built yet")
    ruleset = read_ruleset(ruleset_path, rulesets)
    answers = _answers(answers_path)
    card = _read_card(card_path) if card_path else None
    result = _build(ruleset, answers, card)
    text = dumps(result.card, indent=2) + "\n"
    if out_path is None:
        click.echo(text, nl=False)
    else:
        try:
            Path(out_path).write_text(text, encoding="utf-8")
        except OSError as error:
            fail(f"cannot write card file {out_path}: {error.strerror}")
    for line in _badges(result):
        click.echo(line, err=True)
    for problem in result.problems:
        click.echo(f"answers {problem['path']}: {problem['message']}", err=True)
    if check and any(result.pending.values()):
        raise SystemExit(1)


@character.command("show")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--card", "card_path", required=True, help="The card JSON file.")
@click.option("--name", default="Character", show_default=True, help="The character's name.")
@rulesets_option
def show_command(ruleset_path: str, card_path: str, name: str, rulesets: tuple[str, ...]) -> None:
    """Print a character as the GM's sheet block shows it, then its builder badges."""
    ruleset = read_ruleset(ruleset_path, rulesets)
    card = _read_card(card_path)
    snapshot = Snapshot.model_validate({"gameCharacterCards": {name: card}})
    for line in character_block(ruleset, snapshot, name):
        click.echo(line)
    record = card.get("builder")
    saved = record.get("answers") if isinstance(record, dict) else None
    if ruleset.sheet.builder_model is None or saved is None:
        click.echo("(no builder answers on this card)")
        return
    try:
        answers = read_answers(saved)
    except AnswersError as error:
        lines = [f"  builder.answers.{problem}" for problem in error.problems]
        fail("\n".join([f"card {card_path} is invalid:", *lines]))
    badges = _badges(_build(ruleset, answers, card))
    click.echo("Builder: " + ("every step done" if not badges else f"{len(badges)} steps pending"))
    for line in badges:
        click.echo(f"  {line}")


@character.command("new")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--out", "out_path", required=True, help="Where `w` writes the card.")
@click.option("--card", "card_path", help="The card to build on (its builder answers resume).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The creation dice seed.")
@click.option("--name", default="Character", show_default=True, help="The character's name.")
@rulesets_option
def new_command(
    ruleset_path: str,
    out_path: str,
    card_path: str | None,
    seed: int | None,
    name: str,
    rulesets: tuple[str, ...],
) -> None:
    """Build a character step by step in the terminal (keys: ? in the wizard)."""
    ruleset = read_ruleset(ruleset_path, rulesets)
    if ruleset.sheet.builder_model is None:
        fail("ruleset cannot build a character:\n  sheet.builder: this ruleset has no builder")
    card = _read_card(card_path) if card_path else None
    record = card.get("builder") if card else None
    saved = record.get("answers") if isinstance(record, dict) else None
    if saved is not None:
        try:
            read_answers(saved)
        except AnswersError as error:
            lines = [f"  builder.answers.{problem}" for problem in error.problems]
            fail("\n".join([f"card {card_path} is invalid:", *lines]))
    wizard = Wizard(ruleset, answers=saved, card=card, seed=seed, out=out_path, name=name)
    click.echo(wizard.start())
    while not wizard.done:
        try:
            line = click.prompt(wizard.prompt, default="", show_default=False, prompt_suffix="")
        except click.Abort:  # end of input or Ctrl-C: as `q`
            click.echo("")
            line = "q"
        click.echo(wizard.feed(line))


__all__ = ["character"]
