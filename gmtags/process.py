"""`process`: apply every tag of one response, in order, to a snapshot (SPEC §1).

The pipeline is scan → parse → dispatch → render. `process` never raises on
any response text: a tag that cannot be read, or that comes past the command
limit, becomes a refused receipt and the narration around it passes through.

A game plays its active layers (SPEC §4, `rulesetLayers`): every tag of the
response is applied with `effective_ruleset(ruleset, snapshot.ruleset_layers)`,
the ruleset itself when the snapshot names none.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from gmtags.engine.context import Context
from gmtags.engine.registry import HANDLERS
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.log import command_logger, get_logger
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import effective_ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.tags.parse import ParsedTag, parse_span
from gmtags.tags.receipt import ENGINE_ATTRS, Receipt, refused
from gmtags.tags.render import Placed, card_text, display_text, receipt_text
from gmtags.tags.scan import Span, find_spans
from gmtags.tags.spell import placeholder
from gmtags.text import clean_value

_log = get_logger()


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """What one response became: receipts text, display text, the new snapshot."""

    source: str
    text: str
    display: str
    snapshot: Snapshot
    placed: tuple[Placed, ...]
    seed: int

    @property
    def receipts(self) -> list[Receipt]:
        """One receipt per tag, in response order."""
        return [item.receipt for item in self.placed]

    @property
    def cards(self) -> str:
        """The narration with a one-line card where each tag was."""
        return card_text(self.source, self.placed)


def new_seed() -> int:
    """A fresh seed for `seed=None`; it is kept on the result so the run can be replayed."""
    return secrets.randbits(63)


def _pairs(tag: ParsedTag) -> tuple[tuple[str, str | None], ...]:
    return tuple((attr.key, attr.value) for attr in tag.attrs)


def _malformed(tag: ParsedTag, limits: Limits) -> Receipt:
    body = clean_value(tag.body, limits.receipt_value_length)
    echo = (*_pairs(tag), ("raw", body)) if body else _pairs(tag)
    return refused(tag.name, _pairs(tag), echo, "malformed")


def apply_tag(tag: ParsedTag, snapshot: Snapshot, context: Context) -> tuple[Snapshot, Receipt]:
    """Dispatch one well-formed tag to its handler. A handler bug refuses, never escapes."""
    try:
        applied = HANDLERS[tag.name](tag, snapshot, context)
    except Exception:  # a bug must not cost the player the narration
        _log.exception("command.failed", tag=tag.raw)
        return snapshot, refused(tag.name, _pairs(tag), _pairs(tag), "internal-error")
    return applied.snapshot, applied.receipt


def step(
    text: str, span: Span, count: int, snapshot: Snapshot, context: Context
) -> tuple[Snapshot, Receipt]:
    """Apply the `count`-th tag of a response (1-based), found at `span` in `text`.

    The one step both `process` and the stream filter take: past the command
    limit a tag is refused as too-many, a malformed one is refused as
    malformed, one holding a placeholder value as placeholder (SPEC §2.1: a
    value that decides a result is never guessed), any other goes to its
    handler. A tag read in a variant spelling says so (`recovered="…"`).
    """
    tag = parse_span(text, span, ENGINE_ATTRS[span.name])
    if count > context.limits.commands_per_response:
        receipt = refused(tag.name, _pairs(tag), _pairs(tag), "too-many")
    elif tag.malformed:
        receipt = _malformed(tag, context.limits)
    elif placeholder(tag.name, _pairs(tag)) is not None:
        receipt = refused(tag.name, _pairs(tag), _pairs(tag), "placeholder")
    else:
        snapshot, receipt = apply_tag(tag, snapshot, context)
    if tag.recovered:
        receipt = receipt.noting("recovered", " ".join(tag.recovered))
    receipt = receipt.within(context.limits)  # the caller's limits, not the defaults
    command_logger().info(
        "command.applied",
        tag=tag.name,
        result=receipt.result,
        reason=receipt.reason,
        receipt=receipt.render(),
        discarded=tag.discarded or None,
    )
    return snapshot, receipt


class SeededDice:
    """`random.Random(seed)`, seeded when the response throws its first die.

    Issue 16: seeding costs about 4 µs, as much as the rest of a sheet command; a
    reply of clocks and sheet commands throws no die and never pays it. The first
    throw puts the seeded generator's own `randint` on the instance, so every
    throw after it costs what `random.Random.randint` does.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def randint(self, a: int, b: int) -> int:
        """One die, as `random.Random(seed).randint` throws it."""
        throw = random.Random(self.seed).randint
        self.randint = throw  # type: ignore[method-assign]
        return throw(a, b)


def new_context(ruleset: Ruleset, seed: int, limits: Limits) -> Context:
    """The context of one response: one `random.Random(seed)` for all its dice."""
    return Context(ruleset, SeededDice(seed), limits)


def result_of(text: str, placed: Sequence[Placed], snapshot: Snapshot, seed: int) -> ProcessResult:
    """The result of one response from its tags' receipts and the final snapshot."""
    frozen = tuple(placed)
    return ProcessResult(
        source=text,
        text=receipt_text(text, frozen),
        display=display_text(text, frozen),
        snapshot=snapshot,
        placed=frozen,
        seed=seed,
    )


def process(
    text: str,
    ruleset: Ruleset,
    snapshot: Snapshot | None = None,
    seed: int | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> ProcessResult:
    """Apply every tag in `text` in order and rewrite each with its receipt.

    The same text, ruleset, snapshot and seed always give the same result.
    The snapshot's `rulesetLayers` say which of the ruleset's layers the game plays.
    """
    if not isinstance(text, str):
        raise TypeError("process() needs the response as str")
    state = Snapshot() if snapshot is None else snapshot
    seed = new_seed() if seed is None else seed
    context = new_context(effective_ruleset(ruleset, state.ruleset_layers), seed, limits)
    placed: list[Placed] = []
    for count, span in enumerate(find_spans(text, limits), start=1):
        state, receipt = step(text, span, count, state, context)
        placed.append(Placed(span.start, span.end, receipt))
    return result_of(text, placed, state, seed)
