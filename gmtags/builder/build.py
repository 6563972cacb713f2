"""`build_character` (SPEC §10): the card recomputed from the ruleset, the answers and the card.

SPEC §10: "the card is a pure function of the ruleset, the answers and the
card's own hand-written values, recomputed from scratch on every change, so
Back/Next, deselection, profile switches and undo are exact by construction
(a pick's gains exist only while the pick is active, each recorded as the
change actually applied after clamps). Nothing blocks: an answer that cannot
count … is kept, inactive, with a reason, and the step's badge counts it."

The order (BUILDER §2.2): the player's layer (`gmtags.builder.card`), then the
steps in their declared order, each seeing the card as the steps before it
left it for its `when`; an abilities step sets the base scores; every active
pick writes its picks, rows, `sets`, training and item access; then the
abilities `add`s and choices (`gmtags.builder.scores`), the training choices
(`gmtags.builder.training`), the entry choices, the free rating dots
(`gmtags.builder.ratings`), and what the other step kinds do once every step
has run, in step order: the allocate stages, the pools (priced picks and rows
paid first, then every spend step's ledger: `gmtags.builder.pools`), the
rolls and the initialize writes (`gmtags.builder.kinds`). Reads of "the sheet
as it is" (a catalog step's `upTo`, `countFrom` and an entry's `offeredWhen`,
a kit's `fits`, a field's `shownWhen`, what a pool can pay) are made on the
finished card, each by its step kind's `gate`, and the build is made again with
what they decide, to a fixpoint of at most 8 builds (BUILDER §3.11). A step the
finished card gates in nothing has no gate, so a build nothing gates is made
once. Each build reads a frozen `Context` and writes the card only through its
`Writer`, whose append-only record (`BuildResult.record`) says which step wrote
what and takes it back exactly (`gmtags.builder.card.take_back`).

Every step kind of 004 is built (BUILDER chunks B–F), with quotas,
`distinctBy`, `quotaBelow` and the creation constraints (`quotas`,
`constraints`), borrowed catalogs (read at load), profiles, `reads.before`
(the sheet before a step: built again with it and the later steps hidden) and
entry-choice slots counted from the sheet (`gmtags.builder.profiles`), and
described characters (`gmtags.builder.described`: a filled card with no
builder record opens described and comes back unchanged; Done records the
described picks' ability gains), and the party builder (`gmtags.builder.party`:
the same build over the party's fields and lists, its `fromMembers` fields read
from the members). Decisions where the
seed is silent are in each module's docstring and in `BUILDER.md` §3.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from gmtags.builder import described, pools, profiles
from gmtags.builder import party as party_sheet
from gmtags.builder import steps as kinds
from gmtags.builder.answers import Answers, read_answers
from gmtags.builder.card import Layer, Writer, Wrote, player_layer, settle
from gmtags.builder.result import LedgerLine, StepEntry
from gmtags.builder.state import Context, Finished, Gates
from gmtags.errors import AnswersError, Problem, RulesetError
from gmtags.jsonfile import json_type
from gmtags.ruleset.builder import Builder
from gmtags.ruleset.model import Ruleset
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, card_problems

MAX_BUILDS = 8
"""BUILDER §3.11: reads of the sheet as it is settle in at most this many builds."""


@dataclass
class BuildResult:
    """What `build_character` returns (SPEC §10)."""

    card: dict[str, Any]
    pending: dict[str, int]
    steps: list[StepEntry]
    pools: dict[str, dict[str, int]]
    ledger: list[LedgerLine]
    profile: str | None
    dropped: list[dict[str, Any]]
    answers: dict[str, Any]
    problems: list[dict[str, str]]
    record: tuple[Wrote, ...] = field(default=(), compare=False, repr=False)
    """Every change the build made to the player's layer, in order, each with the step (or
    the finishing work) that made it (`gmtags.builder.card.Wrote`): `take_back` of the
    whole record from a character's card (without its builder record) gives the player's
    layer. Not part of the JSON result (`to_json`); a party build's record is of the party
    sheet read as a card (`gmtags.builder.party.as_card`)."""

    def to_json(self) -> dict[str, Any]:
        """The result as JSON, SPEC §10's fields only."""
        return {
            "card": self.card,
            "pending": self.pending,
            "steps": self.steps,
            "pools": self.pools,
            "ledger": self.ledger,
            "profile": self.profile,
            "dropped": self.dropped,
            "answers": self.answers,
            "problems": self.problems,
        }


def build_character(
    ruleset: Ruleset,
    answers: Answers | Mapping[str, Any],
    card: Mapping[str, Any] | None = None,
    *,
    party: bool = False,
    members: Mapping[str, Any] | None = None,
) -> BuildResult:
    """The card `answers` build on `card` (SPEC §10); raises only `RulesetError` (no builder)
    and `AnswersError` (answers of the wrong shape).

    With `party`, the shared party sheet (`gamePartySheet`) `answers` build on `card`, the
    `fromMembers` fields read from `members` (`gmtags.builder.party`).

    SPEC §1: input of any JSON type raises nothing else. A `card` that is not one (a party
    sheet with `party`) as a snapshot holds it, or `members` that are not an object of
    cards, is refused with `AnswersError` at `card.<path>` or `members.<path>`, as the
    answers are; the card's builder record is the builder's own and read as far as it has
    the shape it writes (`gmtags.builder.card`)."""
    card = _checked(card, party)
    if members is not None and not isinstance(members, Mapping):
        message = f"the members are a JSON object of cards, not {json_type(members)}"
        raise AnswersError([Problem("members", message)])
    if not party:
        model = ruleset.sheet.builder_model
        if model is None:
            raise RulesetError([Problem("sheet.builder", "this ruleset has no builder")])
        return _build_card(ruleset, model, answers, card, {})
    model = party_sheet.party_of(ruleset).builder_model
    assert model is not None  # party_of refuses a party sheet without a builder
    from_members = party_sheet.member_fields(ruleset, members)
    view = party_sheet.party_view(ruleset)
    res = _build_card(view, model, answers, party_sheet.as_card(card, from_members), from_members)
    res.card = party_sheet.as_sheet(res.card, from_members)
    return res


def _checked(card: Any, party: bool) -> dict[str, Any] | None:
    """`card` as a dict, or `AnswersError` at each place it is not a card (a party sheet)."""
    if card is None:
        return None
    data = dict(card) if isinstance(card, Mapping) else card
    problems = card_problems(data, "card", party)
    if problems:
        raise AnswersError(problems)
    return data


def _build_card(
    ruleset: Ruleset,
    builder: Builder,
    answers: Answers | Mapping[str, Any],
    card: Mapping[str, Any] | None,
    start: Mapping[str, Any],
) -> BuildResult:
    """`build_character` on a sheet whose every card starts with the fields `start` (the
    party's `fromMembers` fields: the blank build reads them too)."""
    if isinstance(answers, Answers):
        read = answers
    else:  # SPEC §1: answers of any JSON type are read, or refused with AnswersError
        read = read_answers(dict(answers) if isinstance(answers, Mapping) else answers)
    blank = party_sheet.as_card(None, start) or None
    read = described.resolve(read, card, partial(_blank, ruleset, builder, blank))
    if described.is_done(read, card):
        again = partial(_build, ruleset, builder)
        card = described.done_card(ruleset, read, card, lambda a, c: again(a, c).card)
    res = _build(ruleset, builder, read, card)
    if read.described is True:
        res.card = described.as_described(card, res.answers)
    return res


def _blank(ruleset: Ruleset, builder: Builder, card: Mapping[str, Any] | None) -> dict[str, Any]:
    """The card the blank build gives (no answers; `card` only what every card starts with:
    `gmtags.builder.described`)."""
    return _build(ruleset, builder, read_answers({"v": 1, "seed": 0}), card).card


def _build(
    ruleset: Ruleset, builder: Builder, read: Answers, card: Mapping[str, Any] | None
) -> BuildResult:
    seed = read.seed if read.seed is not None else secrets.randbits(63)
    layer = player_layer(card)
    context = Context(ruleset, builder, read, seed)
    run = _Run(context, layer)
    for _ in range(MAX_BUILDS):
        run = _Run(context, layer)
        run.build()
        decided = run.gates_now()
        if decided == context.gates:
            break
        context = replace(context, gates=decided)
    return run.result()


class _Run:
    """One build from the player's layer in its context (the gates of the build before)."""

    def __init__(self, context: Context, layer: Layer) -> None:
        self.context = replace(context, before=self._before, settle_pools=pools.settle)
        self.layer = layer
        self.writer = Writer(copy.deepcopy(layer.card), layer)
        self.state = kinds.Walk(self.context, self.writer)
        self._befores: dict[str, SheetValues] = {}

    def build(self) -> None:
        for step in self.context.builder.steps:
            self.state.run_step(step)
        if self.context.builder.pools:
            # 004: every declared pool is there from the start at its budget, whether or
            # not a shown step pays from it (an initialize step reads its `remaining`).
            self.state.register_settle()
        self.state.finish()

    def values(self) -> SheetValues:
        return self.state.values()

    def gates_now(self) -> Gates:
        """The gates the finished card decides: each step kind's own `gate` (module doc)."""
        done = Finished(self.state, self.values(), self._without, self._before)
        decided: dict[str, object] = {}
        for step in self.context.builder.steps:
            kind = kinds.KINDS.get(step.kind)
            found = kind.gate(done, step) if kind is not None and kind.gate is not None else None
            if found is not None:
                decided[step.id] = found
        return Gates(decided)

    def _without(self, step_id: str, group: str) -> SheetValues:
        """The sheet built without `step_id`'s saved picks of the exclusive `group` (1.100)."""
        step = next(s for s in self.context.builder.steps if s.id == step_id)
        catalog = self.state.catalogs.get(getattr(step, "catalog", ""))
        grouped = (
            {e.id for e in (catalog.entries or ()) if e.exclusive == group} if catalog else set()
        )
        answers = self.context.answers
        answer = answers.step(step_id)
        kept = [pick for pick in answer.picks or [] if pick not in grouped]
        steps = {**answers.steps, step_id: answer.model_copy(update={"picks": kept})}
        apart = _Run(
            replace(self.context, answers=answers.model_copy(update={"steps": steps})), self.layer
        )
        apart.build()
        return apart.values()

    def _before(self, step_id: str) -> SheetValues:
        """The sheet as the steps before `step_id` leave it (`gmtags.builder.profiles`)."""
        if step_id not in self._befores:
            hidden = profiles.cut_from(self.context.builder, step_id)
            cut = _Run(replace(self.context, cut=hidden), self.layer)
            cut.build()
            self._befores[step_id] = cut.values()
        return self._befores[step_id]

    def result(self) -> BuildResult:
        state = self.state
        record: dict[str, Any] = {
            "answers": state.normalised_answers(),
        }
        if state.available:
            record["available"] = list(dict.fromkeys(state.available))
        if state.kits:
            record["kits"] = state.kits
        record.update(state.saved)
        card, dropped = settle(self.writer, self.layer, record)
        CharacterCard.model_validate(card)  # a bug guard: the card the builder writes plays
        return BuildResult(
            card=card,
            pending={entry["id"]: entry["pending"] for entry in state.steps},
            steps=state.steps,
            pools=state.pools,
            ledger=state.ledger,
            profile=state.profile,
            dropped=dropped,
            answers=state.normalised_answers(),
            problems=[
                {"path": p.path, "message": p.message}
                for p in [*state.problems, *_unknown_steps(state.builder, state.answers)]
            ],
            record=tuple(self.writer.record),
        )


def _unknown_steps(builder: Builder, answers: Answers) -> list[Problem]:
    """A problem at `steps.<id>` for each answer naming a step the builder does not have.

    SPEC §10: `res.problems` lists "answers naming nothing real; never raised". The answer
    stays in `res.answers` (a step renamed in the ruleset keeps what the player said) and
    every other answer still counts."""
    known = {step.id for step in builder.steps}
    return [
        Problem(f"steps.{step_id}", "not a step of this builder")
        for step_id in answers.steps
        if step_id not in known
    ]


__all__ = ["BuildResult", "build_character"]
