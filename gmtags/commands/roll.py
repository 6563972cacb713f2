"""`gmtags roll`: roll a symbol-pool ruleset's dice by name from the command line.

000, "symbol-pool: tirar dados narrativos y leer los símbolos": outside a
check the dice are rolled by name (`2 ability 1 proficiency vs 2 difficulty`)
and their symbols counted and cancelled as in a check. Exit codes follow the
CLI's: 0 ok, 1 a ruleset that does not load or is not symbol-pool, or an
expression that does not read (one clear line on stderr), 2 usage.
"""

from __future__ import annotations

import random

import click

from gmtags.checks.named_roll import BadRoll, roll_named
from gmtags.commands.common import fail, read_ruleset
from gmtags.ruleset.resolution import SymbolPool


@click.command("roll")
@click.option("--ruleset", "ruleset_path", required=True, help="A symbol-pool ruleset JSON file.")
@click.option("--seed", type=int, help="Seed for the dice (default: a fresh one).")
@click.argument("expression")
def roll_command(ruleset_path: str, seed: int | None, expression: str) -> None:
    """Roll named symbol dice, like "2 ability 1 proficiency vs 2 difficulty"."""
    rules = read_ruleset(ruleset_path).resolution_rules
    if not isinstance(rules, SymbolPool):
        fail(
            f"ruleset {ruleset_path} is {rules.kind_name}, not symbol-pool: "
            "only a symbol-pool ruleset rolls dice by name"
        )
    rolled = roll_named(rules, expression, random.Random(seed))
    if isinstance(rolled, BadRoll):
        fail(f"cannot read the roll {expression!r}: {rolled.message}")
    click.echo(f"dice: {rolled.dice.text}")
    click.echo(f"thrown: {rolled.thrown_ids}")
    click.echo(f"rolls: {rolled.rolls}")
    click.echo(f"details: {rolled.details}")
    click.echo(f"symbols: {rolled.symbols or '(none)'} ({rolled.labels})")
    click.echo(f"result: {'success' if rolled.success else 'failure'}")
