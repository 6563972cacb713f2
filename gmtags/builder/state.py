"""One build in progress: what the steps have written so far and what they leave for after.

`State` is what every step kind reads and writes; the walk over the steps is
`gmtags.builder.steps.Walk`, and each step kind's own work is in a module of its own
(`gmtags.builder.kinds`, `abilities`, `pools`, …) that takes a `State`. So no step kind
imports the walk, and the walk imports them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gmtags.builder.accounts import Account, Charge
from gmtags.builder.answers import Answers
from gmtags.builder.card import Writer
from gmtags.builder.scores import Chosen
from gmtags.builder.training import Slot, What
from gmtags.errors import Problem
from gmtags.ruleset.builder import Builder
from gmtags.ruleset.catalogs import Catalog, CatalogEntry, EntryChoice, RatingGrant
from gmtags.ruleset.model import Ruleset
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard

Entry = dict[str, Any]
"""One step's result entry, of `res.steps`' shape (SPEC §10)."""
Finisher = Callable[["State", dict[str, Entry]], None]
"""Work done once every step has run, given the result entries by step."""


@dataclass
class Gates:
    """What the sheet as it is decided on the last build: per catalog step, the picks it
    reads as not offered (and why) and its counted size; per step, the fields it hides."""

    closed: dict[str, dict[str, str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    hidden_fields: dict[str, frozenset[str]] = field(default_factory=dict)
    unfit_kits: dict[str, frozenset[str]] = field(default_factory=dict)
    unpaid_rows: dict[str, dict[int, str]] = field(default_factory=dict)
    """Per priced rows step, the rows its pool did not pay (`gmtags.builder.priced_rows`)."""

    def without_empty(self) -> Gates:
        """The same gates without a step that closes, hides or leaves unpaid nothing (as a
        step with no gate reads), so that a build nothing gates is made once."""
        return Gates(
            {k: v for k, v in self.closed.items() if v},
            self.counts,
            {k: v for k, v in self.hidden_fields.items() if v},
            {k: v for k, v in self.unfit_kits.items() if v},
            {k: v for k, v in self.unpaid_rows.items() if v},
        )


@dataclass
class Picked:
    """A pick that counts: its step, catalog and entry."""

    step: str
    catalog: Catalog
    entry: CatalogEntry

    @property
    def ref(self) -> str:
        return f"{self.catalog.id}/{self.entry.id}"


@dataclass
class State:
    """One build in progress (module doc)."""

    ruleset: Ruleset
    builder: Builder
    answers: Answers
    seed: int
    writer: Writer
    gates: Gates
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
    ledger: list[dict[str, Any]] = field(default_factory=list)
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
    cut: frozenset[str] | None = None
    """The steps hidden in a build of the sheet before a step (`gmtags.builder.profiles`)."""
    before: Callable[[str], SheetValues] | None = None
    """The sheet as the steps before a step leave it (`reads.before`)."""
    waiting: dict[str, int] = field(default_factory=dict)
    """Per step, how much of its badge is choices it still waits for (`waits`)."""
    _values: tuple[int, SheetValues] | None = field(default=None, repr=False)
    settle_pools: Finisher | None = None
    """The work that settles the creation pools (`gmtags.builder.pools.settle`), given by the
    build: a step kind that pays from a pool asks for it with `register_settle`."""

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

    @property
    def catalogs(self) -> dict[str, Catalog]:
        return {catalog.id: catalog for catalog in self.ruleset.catalog_models}

    def _entry(self, step: Entry, kind: str) -> Entry:
        self.steps.append(step | {"kind": kind})
        return self.steps[-1]

    def blank_entry(self, step_id: str, kind: str, shown: bool = True) -> Entry:
        return self._entry(
            {
                "id": step_id,
                "shown": shown,
                "required": shown,
                "pending": 0,
                "reasons": [],
                "offered": [],
                "active": [],
                "inactive": [],
                "choices": [],
            },
            kind,
        )

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
        if self.settle_pools is not None:
            self.later("(pools)", self.settle_pools)

    def shown_at(self, kind: type, source: str, by_id: dict[str, Entry]) -> Entry:
        """Where a grant's choice is shown: the first step of `kind`, else its source step."""
        target = next(
            (s.id for s in self.builder.steps if isinstance(s, kind) and by_id[s.id]["shown"]),
            source,
        )
        return by_id[target]

    # -- answers and problems ---------------------------------------------------

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


__all__ = ["Entry", "Gates", "Picked", "State"]
