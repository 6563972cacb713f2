"""000, "symbol-pool": narrative dice whose faces show symbols that cancel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, ClassVar, Literal

from pydantic import (
    Field,
)

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.resolution.common import (
    Found,
    Loc,
    PromptSafe200,
    Rung,
    distinct,
)
from gmtags.ruleset.resolution.overrides import (
    LOCKED_KEYS,
)
from gmtags.ruleset.resolution.rules import (
    ResolutionRules,
    Spend,
    spend_rules,
)


class SymbolRung(Rung):
    """000, "symbol-pool": `dc` counts opposing dice, 0..`difficulty.max`."""

    dc: Annotated[int, Field(ge=0, le=12)]


class Symbol(RulesetModel):
    """000, "symbol-pool": a named symbol; `counts` adds one of another, `cancels` pairs two."""

    id: SheetId
    label: PromptSafe80
    counts: SheetId | None = None
    cancels: SheetId | None = None
    text: PromptSafe200 | None = None


SymbolFace = Annotated[list[SheetId], Field(max_length=3)]
"""A face: up to three symbol ids; `[]` is blank and a repeated id counts twice."""


class SymbolDie(RulesetModel):
    """000, "symbol-pool": a named die of 2–20 faces."""

    id: SheetId
    label: PromptSafe80
    faces: Annotated[list[SymbolFace], Field(min_length=2, max_length=20)]


class SymbolSuccess(RulesetModel):
    """000, "symbol-pool": `needed` of `symbol` after cancelling (1 by default) succeeds."""

    symbol: SheetId
    needed: Annotated[int, Field(ge=1, le=20)] = 1


class SymbolPoolDice(RulesetModel):
    """000, "symbol-pool": the roller's dice, from ability and rank.

    `larger-upgraded` throws the larger of the two and upgrades as many dice
    as the smaller when `upgrade` is declared; `sum` adds both and upgrades
    none. `max` is 6 by default, at most 12.
    """

    die: SheetId
    upgrade: SheetId | None = None
    build: Literal["larger-upgraded", "sum"] = "larger-upgraded"
    max: Annotated[int, Field(ge=1, le=12)] = 6


class OpposingDice(RulesetModel):
    """000, "symbol-pool": `dc=` counts opposing dice from 0 to `max` (5 by default, ≤ 12)."""

    die: SheetId
    upgrade: SheetId | None = None
    max: Annotated[int, Field(ge=1, le=12)] = 5


class ExtraDice(RulesetModel):
    """000, "symbol-pool": boost or setback dice, up to `max` (3 by default, ≤ 6)."""

    die: SheetId
    max: Annotated[int, Field(ge=1, le=6)] = 3


class SymbolPool(ResolutionRules):
    """000, "symbol-pool: tirar dados narrativos y leer los símbolos" (1.141).

    2–10 symbols (no `counts` chains or self references; a symbol in at most
    one `cancels` pair), 2–8 dice whose faces name symbols, and every
    reference to a symbol or die exists. `allowOwnUpgrade` needs
    `pool.upgrade`. Overrides cannot replace `symbols` or `dice`; spend buys
    only dice.
    """

    rung: ClassVar[type[Rung]] = SymbolRung
    buys: ClassVar[frozenset[str]] = frozenset({"dice"})
    locked_keys: ClassVar[frozenset[str]] = LOCKED_KEYS | {"symbols", "dice"}

    kind: Literal["symbol-pool"]
    symbols: Annotated[list[Symbol], Field(min_length=2, max_length=10)]
    dice: Annotated[list[SymbolDie], Field(min_length=2, max_length=8)]
    success: SymbolSuccess
    pool: SymbolPoolDice
    difficulty: OpposingDice | None = None
    boost: ExtraDice | None = None
    setback: ExtraDice | None = None
    critical_success: SheetId | None = Field(default=None, alias="criticalSuccess")
    critical_failure: SheetId | None = Field(default=None, alias="criticalFailure")
    allow_own_upgrade: bool = Field(default=False, alias="allowOwnUpgrade")
    difficulty_ladder: Annotated[list[SymbolRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: Spend = []

    def kind_rules(self) -> Found:
        symbols = {symbol.id: symbol for symbol in self.symbols}
        dice = {die.id for die in self.dice}
        found = distinct([s.id for s in self.symbols], ("symbols",), "symbol id", ("id",))
        found += distinct([d.id for d in self.dice], ("dice",), "die id", ("id",))
        found += self._symbol_links(symbols)
        shown: set[str] = set()
        for index, die in enumerate(self.dice):
            for face, marks in enumerate(die.faces):
                for position, mark in enumerate(marks):
                    if mark not in symbols:
                        found.append(
                            (("dice", index, "faces", face, position), f"names no symbol '{mark}'")
                        )
                    shown.add(mark)
        counted = shown | {symbols[mark].counts or mark for mark in shown if mark in symbols}
        found += self._dice_roles(dice)
        for loc, name, reachable in (
            (("success", "symbol"), self.success.symbol, counted),
            (("criticalSuccess",), self.critical_success, shown),
            (("criticalFailure",), self.critical_failure, shown),
        ):
            if name is None:
                continue
            if name not in symbols:
                found.append((loc, f"names no symbol '{name}'"))
            elif name not in reachable:
                found.append((loc, f"no face of any die shows '{name}', so it could never count"))
        if self.allow_own_upgrade and self.pool.upgrade is None:
            found.append((("allowOwnUpgrade",), "allowOwnUpgrade needs pool.upgrade"))
        return found + spend_rules(self.spend, self.kind_name, self.buys)

    def _symbol_links(self, symbols: Mapping[str, Symbol]) -> Found:
        """`counts` names a symbol without its own `counts`; `cancels` pairs two, once each."""
        found: Found = []
        partner: dict[str, str] = {}
        for index, symbol in enumerate(self.symbols):
            if symbol.counts is not None:
                other = symbols.get(symbol.counts)
                at: Loc = ("symbols", index, "counts")
                if symbol.counts == symbol.id:
                    found.append((at, "a symbol cannot count itself"))
                elif other is None:
                    found.append((at, f"names no symbol '{symbol.counts}'"))
                elif other.counts is not None:
                    found.append((at, f"'{other.id}' has its own counts: no chains"))
            if symbol.cancels is None:
                continue
            at = ("symbols", index, "cancels")
            if symbol.cancels == symbol.id:
                found.append((at, "a symbol cannot cancel itself"))
                continue
            if symbol.cancels not in symbols:
                found.append((at, f"names no symbol '{symbol.cancels}'"))
                continue
            pair = ((symbol.id, symbol.cancels), (symbol.cancels, symbol.id))
            clash = next((one for one, two in pair if partner.get(one, two) != two), None)
            if clash is not None:
                found.append(
                    (at, f"'{clash}' already cancels with '{partner[clash]}': one pair each")
                )
                continue
            partner.update(pair)
        return found

    def _dice_roles(self, dice: set[str]) -> Found:
        found: Found = []
        roles: list[tuple[Loc, str | None]] = [
            (("pool", "die"), self.pool.die),
            (("pool", "upgrade"), self.pool.upgrade),
        ]
        if self.difficulty is not None:
            roles += [
                (("difficulty", "die"), self.difficulty.die),
                (("difficulty", "upgrade"), self.difficulty.upgrade),
            ]
        for key, extra in (("boost", self.boost), ("setback", self.setback)):
            if extra is not None:
                roles.append(((key, "die"), extra.die))
        for loc, name in roles:
            if name is not None and name not in dice:
                found.append((loc, f"names no die '{name}'"))
        for key, part in (("pool", self.pool), ("difficulty", self.difficulty)):
            if part is not None and part.upgrade == part.die:
                found.append(((key, "upgrade"), "the upgraded die must differ from the die"))
        return found

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: a rung's `dc` counts opposing dice, 0..difficulty.max."""
        if self.difficulty is None:
            return [((), "rungs count opposing dice: declare difficulty")] if rungs else []
        top = self.difficulty.max
        return [
            ((position, "dc"), f"dc counts opposing dice, at most difficulty.max ({top})")
            for position, rung in enumerate(rungs)
            if isinstance(rung, SymbolRung) and rung.dc > top
        ]
