"""One build in progress: what the steps have written so far and what they leave for after.

`State` is what every step kind reads and writes: what the build reads and never changes is
its frozen `Context` (the ruleset, the answers, the seed, the gates the build before
decided), and the card is written only through its `Writer` (`gmtags.builder.card`: an
append-only record of each change, by the step that made it). The walk over the steps is
`gmtags.builder.steps.Walk`, and each step kind's own work is in a module of its own
(`gmtags.builder.kinds`, `pools`, …) that takes a `State`. So no step kind
imports the walk, and the walk imports them all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from gmtags.builder import dice as rolls
from gmtags.builder.accounts import Account, Charge
from gmtags.builder.answers import Answers, RecordedRoll
from gmtags.builder.card import Writer
from gmtags.builder.result import LedgerLine, StepEntry
from gmtags.builder.scores import Chosen
from gmtags.builder.training import Slot, What
from gmtags.errors import Problem
from gmtags.ruleset.builder import Builder
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, EntryChoice, RatingGrant
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard

Entry = StepEntry
"""One step's result entry, of `res.steps`' shape (SPEC §10, `gmtags.builder.result`)."""
T = TypeVar("T")
Finisher = Callable[["State", dict[str, Entry]], None]
"""Work done once every step has run, given the result entries by step."""


def read_count(values: SheetValues, ref: RulesetValueRef, most: int) -> int:
    """A size read from the sheet (a `countFrom`): the number floored and held to 0..`most`
    (0 when it is not a finite number)."""
    read = values.value(ref)
    return max(0, min(math.floor(read), most)) if math.isfinite(read) else 0


@dataclass(frozen=True)
class Gates:
    """What the finished sheet decided on the build before, by step: each step kind's own
    `gate` (`gmtags.builder.steps.StepKind`: a catalog step's picks not offered and its
    counted size, the fields a fields step hides, …). A step the sheet gates in nothing is
    absent, so a build nothing gates is made once."""

    by_step: Mapping[str, object] = field(default_factory=dict)

    def of(self, step_id: str, kind: type[T]) -> T | None:
        """The gate of `step_id`, when there is one of its kind's type."""
        found = self.by_step.get(step_id)
        return found if isinstance(found, kind) else None


@dataclass(frozen=True)
class Finished:
    """What a step kind's `gate` reads: the finished build, the sheet as it is, and the sheet
    built again without a step's saved picks of an exclusive group (`without(step, group)`)
    or as the steps before a step leave it (`before(step)`)."""

    state: State
    values: SheetValues
    without: Callable[[str, str], SheetValues]
    before: Callable[[str], SheetValues]


@dataclass
class Picked:
    """A pick that counts: its step, catalog and entry."""

    step: str
    catalog: Catalog
    entry: CatalogEntry

    @property
    def ref(self) -> str:
        return f"{self.catalog.id}/{self.entry.id}"


@dataclass(frozen=True)
class Context:
    """What one build reads and never changes: the ruleset and its builder, the answers and
    the seed, the gates the build before decided, and, for a build of the sheet before a
    step, the steps it hides (`cut`); `before` gives the sheet as the steps before a step
    leave it, and `settle_pools` the work that settles the creation pools (`gmtags.builder.
    pools.settle`), which a step kind that pays from a pool asks for (`register_settle`)."""

    ruleset: Ruleset
    builder: Builder
    answers: Answers
    seed: int
    gates: Gates = field(default_factory=Gates)
    cut: frozenset[str] | None = None
    before: Callable[[str], SheetValues] | None = None
    settle_pools: Finisher | None = None
    catalogs: Mapping[str, Catalog] = field(init=False, repr=False, compare=False)
    """The ruleset's catalogs by id."""

    def __post_init__(self) -> None:
        by_id = {catalog.id: catalog for catalog in self.ruleset.catalog_models}
        object.__setattr__(self, "catalogs", MappingProxyType(by_id))


@dataclass
class State:
    """One build in progress (module doc): what it reads (`context`, frozen) and what the
    steps have written so far (`writer`, its append-only record) and leave for after."""

    context: Context
    writer: Writer
    steps: list[Entry] = field(default_factory=list)
    pools: dict[str, dict[str, int]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    available: list[str] = field(default_factory=list)
    kits: dict[str, list[str]] = field(default_factory=dict)
    picked: dict[str, list[Picked]] = field(default_factory=dict)
    applied: set[str] = field(default_factory=set)
    base_scores: dict[str, int] | None = None
    adds: list[tuple[str, dict[str, int]]] = field(default_factory=list)
    ability_slots: list[tuple[str, Chosen]] = field(default_factory=list)
    trained_grants: list[tuple[What, list[str], str | None]] = field(default_factory=list)
    training_slots: list[tuple[str, Slot]] = field(default_factory=list)
    entry_slots: list[tuple[str, str, EntryChoice]] = field(default_factory=list)
    made_rolls: dict[str, dict[str, Any]] = field(default_factory=dict)
    rating_grants: list[tuple[str, list[RatingGrant]]] = field(default_factory=list)
    """`grants.ratings` of the active picks, with their source (`<step>/<entry>`), in order."""
    finishers: list[tuple[str, Finisher]] = field(default_factory=list)
    """Work a step kind does once every step has run (after the scores, the training and the
    entry choices), in the order the steps asked for it (`later`), with who does it."""
    saved: dict[str, Any] = field(default_factory=dict)
    """Keys a step kind keeps in the card's builder record for the next build."""
    ledger: list[LedgerLine] = field(default_factory=list)
    """SPEC §10 `res.ledger`: one line per purchase step, in purchase order."""
    accounts: dict[str, Account] = field(default_factory=dict)
    """The creation pools as this build spent them (`gmtags.builder.pools`)."""
    unpaid: dict[tuple[str, str], str] = field(default_factory=dict)
    """Priced picks (step, entry) their pool did not pay on this build, and why."""
    charges: list[Charge] = field(default_factory=list)
    """Prices other step kinds (priced rows) ask the pools to pay, paid as priced picks."""
    row_prices: dict[str, list[int | None]] = field(default_factory=dict)
    """Per priced rows step, each answered row's price (`gmtags.builder.priced_rows`)."""
    made_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Answers a step kind made, by step and key, put into `res.answers` (SPEC §10): the
    rows a rows step's `countFrom` added; a None value takes the key out (a visit used)."""
    profile: str | None = None
    """The character's profile (`gmtags.builder.profiles`), once `profile_read`."""
    profile_read: bool = False
    waiting: dict[str, int] = field(default_factory=dict)
    """Per step, how much of its badge is choices it still waits for (`waits`)."""
    _values: tuple[int, SheetValues] | None = field(default=None, repr=False)

    # -- what the build reads (its context) -------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        return self.context.ruleset

    @property
    def builder(self) -> Builder:
        return self.context.builder

    @property
    def answers(self) -> Answers:
        return self.context.answers

    @property
    def seed(self) -> int:
        return self.context.seed

    @property
    def gates(self) -> Gates:
        return self.context.gates

    @property
    def cut(self) -> frozenset[str] | None:
        """The steps hidden in a build of the sheet before a step (`gmtags.builder.profiles`)."""
        return self.context.cut

    @property
    def before(self) -> Callable[[str], SheetValues] | None:
        """The sheet as the steps before a step leave it (`reads.before`)."""
        return self.context.before

    @property
    def catalogs(self) -> Mapping[str, Catalog]:
        return self.context.catalogs

    @property
    def previous(self) -> dict[str, Any]:
        """The builder record the card held before this build."""
        return self.writer.layer.record if self.writer.layer is not None else {}

    # -- reading --------------------------------------------------------------

    def values(self) -> SheetValues:
        """The card as it stands, read as play reads it: read again only once something was
        written since (every change goes through the `Writer`, which counts them)."""
        version = self.writer.version
        if self._values is None or self._values[0] != version:
            card = CharacterCard.model_validate(self.writer.base)
            self._values = (version, SheetValues(self.ruleset, card, None))
        return self._values[1]

    def blank_entry(self, step_id: str, kind: str, shown: bool = True) -> Entry:
        """The step's entry in `res.steps`, with nothing in it yet."""
        entry: Entry = {
            "id": step_id,
            "shown": shown,
            "required": shown,
            "pending": 0,
            "reasons": [],
            "offered": [],
            "active": [],
            "inactive": [],
            "choices": [],
            "kind": kind,
        }
        self.steps.append(entry)
        return entry

    def waits(self, entry: Entry, count: int) -> None:
        """`count` more choices the step still waits for (004: "las elecciones sin terminar"):
        in its badge while the step is required (`requiredWhen`, `gmtags.builder.steps`)."""
        entry["pending"] += count
        self.waiting[entry["id"]] = self.waiting.get(entry["id"], 0) + count

    def later(self, by: str, work: Finisher) -> None:
        """Do `work` once every step has run, after the work asked for before it; `by` names
        who writes what it writes (`Wrote.by`). The same work is asked for once."""
        if all(work is not done for _, done in self.finishers):
            self.finishers.append((by, work))

    def register_settle(self) -> None:
        """Settle the creation pools once every step has run (once, at the place of the first
        step kind that asks)."""
        if self.context.settle_pools is not None:
            self.later("(pools)", self.context.settle_pools)

    def shown_at(self, kind: type, source: str, by_id: dict[str, Entry]) -> Entry:
        """Where a grant's choice is shown: the first step of `kind`, else its source step."""
        target = next(
            (s.id for s in self.builder.steps if isinstance(s, kind) and by_id[s.id]["shown"]),
            source,
        )
        return by_id[target]

    # -- answers and problems ---------------------------------------------------

    def creation_roll(self, step_id: str, key: str, dice: rolls.Dice) -> int | None:
        """A creation roll: the one in the answers, else a new one from the seed (SPEC §10),
        kept in the answers the build returns (faces and attempt)."""
        recorded: RecordedRoll | None = (self.answers.step(step_id).rolls or {}).get(key)
        attempt = recorded.attempt if recorded is not None else 0
        if recorded is not None and recorded.faces is not None:
            problem = rolls.faces_problem(dice, recorded.faces)
            if problem is not None:
                self.problem(f"steps.{step_id}.rolls.{key}.faces", problem)
                return None
            made = rolls.read_roll(dice, recorded.faces)
        else:
            made = rolls.throw(dice, self.seed, step_id, key, attempt)
        self.made_rolls.setdefault(step_id, {})[key] = {
            "faces": list(made.faces),
            "attempt": attempt,
        }
        return made.total

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def normalised_answers(self) -> dict[str, Any]:
        """The answers with the seed and every creation roll made (SPEC §10)."""
        data = self.answers.model_dump(mode="json", by_alias=True, exclude_none=True)
        data["seed"] = self.seed
        for step_id, made in self.made_rolls.items():
            step = data.setdefault("steps", {}).setdefault(step_id, {})
            step["rolls"] = {**step.get("rolls", {}), **made}  # a made roll holds the answer's
        for step_id, keys in self.made_answers.items():
            step = data.setdefault("steps", {}).setdefault(step_id, {})
            for key, value in keys.items():
                if value is None:
                    step.pop(key, None)
                else:
                    step[key] = value
        return data


__all__ = ["Context", "Entry", "Finished", "Gates", "Picked", "State", "read_count"]
