"""`gmtags character build` and `gmtags character show` (SPEC §10).

- `build --ruleset R.json --answers A.json [--card C.json] [--out OUT.json]
  [--check] [--trace]` writes the card the answers build (stdout without
  `--out`), lists every shown step with a badge above 0 on stderr, and exits 0
  even then (Next never blocks); `--check` exits 1 while any badge is above 0;
  `--trace` first lists on stderr every change the build made to the card, in
  order, each after the step (or the work done once every step has run, in
  parentheses) that made it (`gmtags.builder.card.said`): for an author
  checking what a builder does.
- `show --ruleset R.json --card C.json [--name N]` prints the character as
  the GM's sheet block shows it, then its badges, rebuilt from the answers
  the card's builder record keeps.
- `new --ruleset R.json --out OUT.json [--card C.json] [--seed N]` is the
  terminal wizard (`gmtags.builder.wizard`): a card with builder answers is
  taken up where it was left; `w` writes OUT.json, `q` quits without writing.

`build` also saves into a game's state: `--state S.json` is the snapshot
the card belongs to; `--name N` takes the card of that character from it
(when no `--card` is given), and `--state-out S2.json` writes the state with
the built card saved as `N` (`gmtags.state.saves.save_card`). With `--party`
the builder is the party's (`party.builder`): the card is the state's
`gamePartySheet` (or `--card`), `fromMembers` reads the state's characters,
and `--state-out` saves the sheet, raising `gamePartySheetRevision`;
`--revision R` names the revision the answers were made on, and a state that
has moved past it is refused (exit 1, the latest revision named, nothing
written), as a stale save is (002, "Creación compartida del grupo").

Exit codes (SPEC §1): 0 done, 1 an invalid ruleset, answers, card or state
(one clear message naming the place) or a stale party save, 2 usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from gmtags.builder.answers import load_answers, read_answers
from gmtags.builder.build import BuildResult, build_character
from gmtags.builder.card import said
from gmtags.builder.wizard import Wizard
from gmtags.commands.common import (
    fail,
    guard,
    read_ruleset,
    read_snapshot,
    rulesets_option,
    write_out,
)
from gmtags.errors import AnswersError, Problem, RulesetError, SnapshotError
from gmtags.jsonfile import JsonTextError, dumps, loads
from gmtags.prompt.reminder import character_block
from gmtags.ruleset.model import Ruleset
from gmtags.state.characters import Character, find_character
from gmtags.state.saves import StaleRevision, save_card, save_party_sheet
from gmtags.state.snapshot import Snapshot, card_problems


@click.group("character")
def character() -> None:
    """Build a character with the ruleset's guided builder."""


def _read_card(path: str, party: bool = False) -> dict[str, Any]:
    """`--card`: strict JSON holding one card (SPEC §4), or a party sheet with `party`; exits
    1 naming the place."""

    def load() -> dict[str, Any]:
        try:
            data = loads(Path(path).read_text(encoding="utf-8"))
        except JsonTextError as error:
            raise SnapshotError([Problem("(file)", str(error))]) from None
        problems = card_problems(data, "(root)", party)
        if problems:
            raise SnapshotError(
                Problem(p.path.removeprefix("(root).") or "(root)", p.message) for p in problems
            )
        return dict(data)

    return guard("party sheet" if party else "card", path, load)


def _answers(path: str) -> Any:
    try:
        return guard("answers", path, lambda: load_answers(path))
    except AnswersError as error:  # guard knows rulesets and states; answers are named here
        lines = [f"  {problem}" for problem in error.problems]
        fail("\n".join([f"answers {path} are invalid:", *lines]))


def _build(
    ruleset: Ruleset,
    answers: Any,
    card: dict[str, Any] | None,
    party: bool = False,
    members: dict[str, Any] | None = None,
) -> BuildResult:
    try:
        return build_character(ruleset, answers, card, party=party, members=members)
    except AnswersError as error:
        fail("\n".join(["answers are invalid:", *(f"  {p}" for p in error.problems)]))
    except RulesetError as error:  # a ruleset without a builder
        lines = [f"  {p}" for p in error.problems]
        what = "the party sheet" if party else "a character"
        fail("\n".join([f"ruleset cannot build {what}:", *lines]))


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
@click.option("--answers", "answers_path", required=True, help="The answers JSON file.")
@click.option("--card", "card_path", help="The card to build on (its hand-written values stay).")
@click.option("--out", "out_path", help="Write the card here instead of stdout.")
@click.option("--check", is_flag=True, help="Exit 1 while any step has a badge above 0.")
@click.option(
    "--trace", is_flag=True, help="List on stderr every change the build made, by its step."
)
@click.option("--party", is_flag=True, help="Build the shared party sheet (party.builder).")
@click.option("--state", "state_path", help="The game state the card belongs to.")
@click.option("--name", help="With --state: the character whose card is built on and saved.")
@click.option("--state-out", "state_out", help="With --state: write the state with the save.")
@click.option(
    "--revision",
    type=click.IntRange(0),
    help="With --party: the party-sheet revision the answers were made on.",
)
@rulesets_option
def build_command(
    ruleset_path: str,
    answers_path: str,
    card_path: str | None,
    out_path: str | None,
    check: bool,
    trace: bool,
    party: bool,
    state_path: str | None,
    name: str | None,
    state_out: str | None,
    revision: int | None,
    rulesets: tuple[str, ...],
) -> None:
    """Build a character (or with --party the party sheet) from an answers file and print (or
    --out) its card."""
    if (name is not None or state_out is not None) and state_path is None:
        raise click.UsageError("--name and --state-out need --state")
    if party and name is not None:
        raise click.UsageError("--name builds a character: the party sheet has no name")
    if state_out is not None and not party and name is None:
        raise click.UsageError("--state-out needs --name: the character the card is saved as")
    if revision is not None and not party:
        raise click.UsageError("--revision is the party sheet's: use it with --party")
    ruleset = read_ruleset(ruleset_path, rulesets)
    answers = _answers(answers_path)
    state = read_snapshot(state_path) if state_path is not None else None
    card = _read_card(card_path, party) if card_path else _card_in(state, party, name)
    members = _members(state) if party else None
    result = _build(ruleset, answers, card, party, members)
    saved = _save(state, result.card, name, revision) if state and state_out else None
    write_out(out_path, dumps(result.card, indent=2) + "\n", "card")
    if saved is not None:
        write_out(state_out, saved.to_json(indent=2) + "\n", "state")
    if trace:
        for wrote in result.record:
            click.echo(f"{wrote.by}: {said(wrote)}", err=True)
    for line in _badges(result):
        click.echo(line, err=True)
    for problem in result.problems:
        click.echo(f"answers {problem['path']}: {problem['message']}", err=True)
    if check and any(result.pending.values()):
        raise SystemExit(1)


def _card_in(state: Snapshot | None, party: bool, name: str | None) -> dict[str, Any] | None:
    """The card the state holds for `--name` (or its party sheet with `--party`)."""
    if state is None:
        return None
    if party:
        sheet = state.to_json_dict().get("gamePartySheet")
        return dict(sheet) if isinstance(sheet, dict) else None
    found = find_character(state, name) if name is not None else None
    if not isinstance(found, Character):
        return None
    return dict(state.to_json_dict()["gameCharacterCards"][found.name])


def _members(state: Snapshot | None) -> dict[str, Any]:
    """The state's characters, which a party sheet's `fromMembers` fields read."""
    return dict(state.to_json_dict().get("gameCharacterCards") or {}) if state else {}


def _save(
    state: Snapshot, card: dict[str, Any], name: str | None, revision: int | None
) -> Snapshot:
    """The state with the card saved as `name` (or as the party sheet, on `revision`)."""
    try:
        if name is not None:
            return save_card(state, name, card)
        opened = state.game_party_sheet_revision if revision is None else revision
        return save_party_sheet(state, card, opened)
    except StaleRevision as stale:
        fail(f"party sheet not saved: {stale}")
    except SnapshotError as error:
        lines = [f"  {problem}" for problem in error.problems]
        fail("\n".join(["cannot save into the state:", *lines]))


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
    steps = "1 step" if len(badges) == 1 else f"{len(badges)} steps"
    click.echo("Builder: " + ("every step done" if not badges else f"{steps} pending"))
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
