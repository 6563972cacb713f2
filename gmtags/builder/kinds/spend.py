"""The `spend` step kind (004, "Presupuestos compartidos y compras con precio", 1.153–1.164;
BUILDER D2–D18): offers bought from a creation pool (`gmtags.builder.pools`).

The answers give each offer its net steps from where it starts (`buys: {"accounting": 3,
"st": -2}`, SPEC §10); the ledger is one line per step, `{step, offer, delta, price,
active}`, in purchase order (the order of the answers' `buys`, steps in step order). So the
seed's one-way ledger falls out of the net: "bajar un valor que se compró retira la última
compra al precio que se pagó, y subir uno que se bajó devuelve su crédito; comprar y bajar
nunca genera crédito", and a refund removes exactly the last line.

Every offer reads the sheet as the free grants, the scores, the training and the allocate
stages left it, before any purchase (004: "Las condiciones leen la ficha antes de las
compras"): its `when` (1.155, offered only while above 0), its `overrides` (the first whose
`when` reads above 0 gives the price; none, the base price), `minFrom` and `maxFrom`
(bounds within `min`..`max`). A line steps from the value so far:
- up: to the next value (one more; the next `allowedRatings` value; the next `table`
  value; from below the minimum, straight up to it "en una sola compra", BUILDER §3.15, one
  line whose price sums the curve), priced on the curve: `flat` n a unit, `perRank` k times
  each rank reached ("subir de 2 a 3 cuesta 15" at 5), `table` the difference of the
  cumulative prices;
- down (`direction: "both"`, or a reduction: `credit` with a `baseline` and a positive
  price, which is `"decrease"`): to the value before, returning the curve's price of that
  step as credit (a negative price). A `credit: true` offer with a negative price (a flaw
  whose value rises) gives credit on the way up.
Credit is taken while it fits the pool's `creditLimit` and the `caps` of the offer's `tags`
(gross credit, D9). `effect: "ownership"` prices its own level from `baseline` (or `min`)
up, and the sheet keeps the higher of its own value and that level (D12). An `exchange`
(D13) costs the pool nothing: each line lowers `from` by `units` (never below `floor`) and
raises the target by `gain` (never above `max`); a value an exchange raised is never lowered
by another exchange, nor one it lowered raised. `unpriced` (1.207): shown with a note, never
bought; the step's badge counts it (BUILDER §3.16).

Nothing is removed or sold silently (D15): a line that cannot count is kept in the ledger,
`active: false`, with a `reason`, and the offer is listed among the step's inactive answers
(the badge counts it). The values are written through `state.writer` (deselection and
hand edits keep working); a numeric target keeps the player's hand-made difference on top
of the recomputed value (SPEC §10, BUILDER §3.7), measured against the value the offers
last gave it (`builder.bought`, by path). The card's builder record keeps each line's
paid price under `builder.purchases[step][offer]` as `[delta, price]` (D14).

Decisions where the seed is silent:
- `offered`, `active` and the `inactive` answers of a spend step name offers (the keys of
  `buys`), not targets: two offers may raise one target (occupation and interest points).
  `offered` holds the offers that can be bought now: an offer closed by its `when` or
  unpriced is left out; an unpriced one is named among the step's reasons instead (its
  note) and counted once in the badge, answered or not.
- A saved line keeps its paid price while its step is what it was (same delta at the same
  place): a price that changed since (a career change flipping an override) is shown as
  `proposed` on the line and named among the step's reasons; "Reprice saved purchases" is
  taking `builder.purchases[step][offer]` out of the card (the next build prices anew).
- An overspent pool (its budget fell, a priced pick took it) keeps every line: the credit
  offers are counted first, then each paid line in purchase order holds while the pool
  covers it; the first it cannot cover and every paid line after it are inactive ("pool
  '<id>' cannot pay it") but still counted in `spent`, so `remaining` shows the overspend
  (negative); each step of the pool gets a badge until it is repaired. `remaining` is
  always budget − the prices of the lines that hold or wait for the pool, + credit.
- A line past `max` (or `maxFrom`, or the target's storage limits), below `min`, past the
  credit limit or a cap, on an offer not offered now (`when`), unpriced, or whose start is
  not its `baseline` (BUILDER §3.17, "not configured") is inactive, and so is every later
  line of that offer. Net steps against the offer's direction are inactive.
- A target left below its minimum (`min`, `minFrom`) gets a badge (an impossible minimum).
- Prices are whole numbers of points (`gmtags.builder.pools`); a curve price that is not
  whole leaves the line inactive, "not configured".
- Shared targets (D15, "Los objetivos compartidos también suspenden las compras
  dependientes de otras reservas"): once an offer of one pool has a line on a target that
  does not hold, every later offer of another pool on that target is inactive ("waits for
  pool '<id>'"), since it was priced on top of it.
- A target both allocated and bought keeps one hand-made difference only when the last
  step writing it is a spend step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gmtags.builder import accounts
from gmtags.builder.controls import Control, Count, Look
from gmtags.builder.result import LedgerLine
from gmtags.builder.targets import Spot, spot
from gmtags.ruleset.builder.common import Cost
from gmtags.ruleset.builder.priced import Offer, SpendStep
from gmtags.ruleset.builder.steps import target_key
from gmtags.sheet.values import SheetValues

if TYPE_CHECKING:
    from gmtags.builder.state import Entry, State

MAX_LINES = 1000
"""004: "con como máximo 1.000 líneas de compra por oferta"."""
RECORD = "purchases"
UNPRICED = "no price yet (unpriced): shown, never bought"
BOUGHT = "bought"


def run(state: State, step: SpendStep) -> None:
    """The step's place in the walk; its purchases are made when the pools settle."""
    state.blank_entry(step.id, step.kind)
    state.register_settle()


def buy_all(state: State, by_id: dict[str, Entry], values: SheetValues) -> None:
    """Every shown spend step's purchases (module doc), after the priced picks."""
    book = _Book(state, values)
    steps = [s for s in state.builder.steps if isinstance(s, SpendStep) and by_id[s.id]["shown"]]
    plans = [book.plan(step, by_id[step.id]) for step in steps]
    for credit in (True, False):
        for plan in plans:
            for offer in plan:
                if offer.credit == credit:
                    book.buy(offer)
    for plan in plans:
        for offer in plan:
            book.finish(offer)
    for step in steps:
        book.minimums(step, by_id[step.id])
    book.keep_differences()


# ---------------------------------------------------------------------------
# targets


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _plain(value: float) -> int | float:
    """A whole value as an int (the card's JSON), else as it is."""
    return int(value) if value == math.floor(value) else value


# ---------------------------------------------------------------------------
# prices


def curve(cost: Cost, low: float, high: float) -> float:
    """What moving from `low` up to `high` costs on the offer's curve (module doc)."""
    if cost.flat is not None:
        return cost.flat * (high - low)
    if cost.per_rank is not None:
        return cost.per_rank * sum(range(math.floor(low) + 1, math.floor(high) + 1))
    rows = cost.table or []

    def cumulative(value: float) -> float:
        below = [paid for at, paid in rows if at <= value]
        return below[-1] if below else rows[0][1]

    return cumulative(high) - cumulative(low)


@dataclass
class _Line:
    delta: float
    price: int
    reason: str | None = None
    proposed: int | None = None
    counted: bool = False


@dataclass
class _Offer:
    """One answered offer of one step, planned before any purchase (module doc)."""

    step: SpendStep
    entry: Entry
    offer: Offer
    net: int
    target: Spot | None
    account: accounts.Account | None
    cost: Cost | None = None
    low: float = 0
    high: float = 0
    reason: str | None = None
    credit: bool = False
    lines: list[_Line] = field(default_factory=list)
    start: float = 0
    end: float = 0
    source: Spot | None = None


class _Book:
    """The spend steps of one build: the value each target has reached so far."""

    def __init__(self, state: State, values: SheetValues) -> None:
        self.state = state
        self.values = values
        self.reached: dict[str, float] = {}
        self.spots: dict[str, Spot] = {}
        self.raised: set[str] = set()
        self.lowered: set[str] = set()
        self.broken: dict[str, str] = {}
        """Targets an earlier offer left with a line that does not hold, and its pool."""
        previous = state.previous.get(RECORD)
        self.saved: dict[str, Any] = previous if isinstance(previous, dict) else {}
        self.record: dict[str, dict[str, list[list[int | float]]]] = {}

    # -- a target's value ----------------------------------------------------

    def current(self, target: Spot) -> float:
        """The target's value so far (before its first purchase: what the card holds)."""
        if target.path in self.reached:
            return self.reached[target.path]
        writer = self.state.writer
        value = (
            writer.writes[target.path] if target.path in writer.writes else writer.own(target.path)
        )
        if target.tiers is None:
            number = _number(value)
            return number if number is not None else target.default
        tier = value.get("tier") if isinstance(value, dict) else value
        return float(target.tiers.index(tier)) if tier in target.tiers else 0.0

    def set(self, target: Spot, value: float) -> None:
        self.reached[target.path] = value
        self.spots[target.path] = target

    # -- planning ----------------------------------------------------------------

    def plan(self, step: SpendStep, entry: Entry) -> list[_Offer]:
        """The step's answered offers with what they read before purchases; the step's
        offered offers and notes on its entry."""
        state, values = self.state, self.values
        account = state.accounts.get(step.pool)
        buys = dict(state.answers.step(step.id).buys or {})
        offers = {offer.id: offer for offer in step.offers}
        for name in buys:
            if name not in offers:
                state.problem(f"steps.{step.id}.buys.{name}", f"names no offer of step '{step.id}'")
                entry["inactive"].append({"answer": name, "reason": "not an offer of this step"})
        for offer in step.offers:
            reason = self._closed(offer)
            if reason is None:
                entry["offered"].append(offer.id)
            elif reason == UNPRICED:
                entry["reasons"].append(f"{offer.label}: {reason}")
                entry["pending"] += 1
        planned = []
        for name, net in buys.items():
            if name in offers and net:
                target = spot(state, offers[name].target)
                planned.append(_Offer(step, entry, offers[name], net, target, account))
        for item in planned:
            self._bounds(item, values)
        return planned

    def price(self, offer: Offer) -> Cost | None:
        """The offer's price now: the first override whose `when` reads above 0, else its
        cost (None: unpriced, or an exchange)."""
        cost = offer.cost
        for override in offer.overrides or ():
            if self.values.value(override.when) > 0:
                cost = override.cost
                break
        return None if cost is None or cost.unpriced else cost

    def _closed(self, offer: Offer) -> str | None:
        if offer.when is not None and not self.values.value(offer.when) > 0:
            return "not offered now (when)"
        if offer.exchange is None and self.price(offer) is None:
            return UNPRICED
        return None

    def limits(self, offer: Offer, target: Spot) -> tuple[float, float]:
        """The offer's bounds: `min`/`max`, `minFrom`/`maxFrom` within them, the target's
        storage limits."""
        low, high = offer.min, offer.max
        if offer.min_from is not None:
            low = max(offer.min, min(offer.max, self.values.value(offer.min_from)))
        if offer.max_from is not None:
            high = max(offer.min, min(offer.max, self.values.value(offer.max_from)))
        return max(low, target.low), min(high, target.high)

    def minimums(self, step: SpendStep, entry: Entry) -> None:
        """A badge for each offered target left below its minimum (module doc)."""
        for offer in step.offers:
            target = spot(self.state, offer.target)
            if offer.id not in entry["offered"] or target is None or offer.effect is not None:
                continue
            if offer.exchange is not None or offer.direction in ("both", "decrease"):
                continue
            low, _ = self.limits(offer, target)
            if self.current(target) < low:
                entry["pending"] += 1
                entry["reasons"].append(f"{offer.label} is below its minimum {_plain(low)}")

    def _bounds(self, item: _Offer, values: SheetValues) -> None:
        offer = item.offer
        item.reason = self._closed(offer)
        item.cost = self.price(offer)
        if item.target is None:
            item.reason = "not configured (no such target on the sheet)"
            return
        item.low, item.high = self.limits(offer, item.target)
        if item.account is not None and item.account.reason is not None:
            item.reason = item.reason or f"pool '{item.step.pool}' is {item.account.reason}"
        if offer.exchange is not None:
            item.source = spot(self.state, offer.exchange.from_)
            if item.source is None:
                item.reason = item.reason or "not configured (no such exchange source)"
            return
        direction = self.direction(offer, item.cost)
        item.credit = (item.net < 0 and direction != "increase") or (
            item.net > 0 and item.cost is not None and not item.cost.positive()
        )

    @staticmethod
    def direction(offer: Offer, cost: Cost | None) -> str:
        """`direction`, else a reduction (credit, baseline, positive price) lowers."""
        if offer.direction is not None:
            return offer.direction
        reduction = offer.credit and offer.baseline is not None
        return "decrease" if reduction and cost is not None and cost.positive() else "increase"

    # -- buying ------------------------------------------------------------------

    def buy(self, item: _Offer) -> None:
        """The offer's lines, each priced and paid or kept inactive (module doc)."""
        offer, target = item.offer, item.target
        steps = min(abs(item.net), MAX_LINES)
        if target is None:
            item.lines = [_Line(1 if item.net > 0 else -1, 0, item.reason) for _ in range(steps)]
            return
        start = self.current(target)
        if offer.effect == "ownership":
            start = offer.baseline if offer.baseline is not None else offer.min
        item.start = value = start
        why = item.reason
        other = self.broken.get(target.path)
        if why is None and other is not None and other != item.step.pool:
            why = f"waits for pool '{other}' (a purchase of {target.key} there does not hold)"
        baseline = offer.baseline
        if why is None and baseline is not None and offer.effect is None and start != baseline:
            why = f"not configured (starts at {_plain(start)}, its baseline is {baseline})"
        up = item.net > 0
        direction = "increase" if offer.exchange is not None else self.direction(offer, item.cost)
        if why is None and (
            (direction == "decrease" and up) or (direction == "increase" and not up)
        ):
            why = "this offer only lowers" if up else "this offer only raises"
        if offer.exchange is not None and why is None:
            why = self._exchange_open(item)
        saved = self._saved(item)
        at = value
        overspent = False
        for place in range(steps):
            line = self._line(item, at, up, why)
            if line.reason is None and place < len(saved) and saved[place][0] == line.delta:
                paid = int(saved[place][1])
                if paid != line.price:
                    line.proposed, line.price = line.price, paid
            if line.reason is None and overspent and item.account is not None:
                item.account.pay(line.price, tuple(offer.tags or ()))
                line.counted, line.reason = True, accounts.CANNOT_PAY.format(item.account.id)
            elif line.reason is None:
                line.reason = self._pay(item, line)
                overspent = line.counted
            item.lines.append(line)
            if line.counted:
                at += line.delta
                continue
            if line.reason is not None:
                why = why or line.reason
                continue
            at += line.delta
            value += line.delta
            if offer.exchange is not None and item.source is not None:
                ex = offer.exchange
                self.set(item.source, self.current(item.source) - ex.units)
        item.end = value
        if any(line.reason is not None for line in item.lines):
            self.broken.setdefault(target.path, item.step.pool)
        if any(line.reason is None for line in item.lines):
            if offer.effect == "ownership":
                value = max(self.current(target), value)
            self.set(target, value)
            if offer.exchange is not None and item.source is not None:
                self.raised.add(target.path)
                self.lowered.add(item.source.path)

    def _exchange_open(self, item: _Offer) -> str | None:
        target, source = item.target, item.source
        if target is None or source is None:
            return item.reason
        if target.path in self.lowered or source.path in self.raised:
            return "exchanged points are never exchanged again"
        return None

    def _line(self, item: _Offer, value: float, up: bool, why: str | None) -> _Line:
        """The next line from `value`: its step, its price, or why it cannot be made."""
        offer = item.offer
        sign = 1 if up else -1
        if why is not None:
            return _Line(sign, 0, why)
        if offer.exchange is not None:
            ex = offer.exchange
            source = item.source
            assert source is not None
            if value + ex.gain > item.high:
                return _Line(ex.gain, 0, f"above its maximum {_plain(item.high)}")
            if self.current(source) - ex.units < max(ex.floor, source.low):
                return _Line(ex.gain, 0, f"{source.key} would fall below {_plain(ex.floor)}")
            return _Line(ex.gain, 0)
        cost = item.cost
        assert cost is not None
        goal = self._next(offer, cost, value, item.low, up)
        if goal is None or goal > item.high:
            return _Line(sign, 0, f"above its maximum {_plain(item.high)}")
        if goal < item.low:
            return _Line(sign, 0, f"below its minimum {_plain(item.low)}")
        price = curve(cost, value, goal) if up else -curve(cost, goal, value)
        whole = accounts.whole(price)
        if whole is None:
            return _Line(goal - value, 0, "not configured (a price that is not whole)")
        return _Line(goal - value, whole)

    @staticmethod
    def _next(offer: Offer, cost: Cost, value: float, low: float, up: bool) -> float | None:
        """The value the next step reaches (module doc), None when there is none."""
        marks: list[float] | None = None
        if offer.allowed_ratings:
            marks = sorted(offer.allowed_ratings)
        elif cost.table:
            marks = [at for at, _ in cost.table]
        if up:
            if marks is None:
                return low if value < low else value + 1
            above = [m for m in marks if (m >= low if value < low else m > value)]
            return above[0] if above else None
        if marks is None:
            return value - 1
        below = [m for m in marks if m < value]
        return below[-1] if below else None

    def _pay(self, item: _Offer, line: _Line) -> str | None:
        """Count the line on the pool: credit within the limits, a price while covered."""
        account = item.account
        if account is None:
            return "no such pool"
        tags = tuple(item.offer.tags or ())
        if line.price < 0:
            amount = -line.price
            if account.credit + amount > account.credit_limit:
                return f"past the credit limit of pool '{account.id}' ({account.credit_limit})"
            if not account.takes(amount, tags):
                capped = next(t for t in tags if t in account.caps)
                return f"past the cap of '{capped}' ({account.caps[capped]})"
            account.pay(line.price, tags)
            return None
        if line.price > 0 and account.remaining < line.price:
            account.pay(line.price, tags)
            line.counted = True
            return accounts.CANNOT_PAY.format(account.id)
        account.pay(line.price, tags)
        return None

    def _saved(self, item: _Offer) -> list[list[float]]:
        found = self.saved.get(item.step.id)
        lines = found.get(item.offer.id) if isinstance(found, dict) else None
        if not isinstance(lines, list):
            return []
        return [
            [float(line[0]), int(line[1])]
            for line in lines
            if isinstance(line, list)
            and len(line) == 2
            and all(_number(x) is not None for x in line)
        ]

    # -- the ledger and the entries --------------------------------------------

    def finish(self, item: _Offer) -> None:
        """The offer's ledger lines, its place in the step's entry and record."""
        state, entry = self.state, item.entry
        held = [line for line in item.lines if line.reason is None]
        for line in item.lines:
            out: LedgerLine = {
                "step": item.step.id,
                "offer": item.offer.id,
                "delta": _plain(line.delta),
                "price": line.price,
                "active": line.reason is None,
            }
            if line.reason is not None:
                out["reason"] = line.reason
            if line.proposed is not None:
                out["proposed"] = line.proposed
                entry["reasons"].append(
                    f"{item.offer.label}: paid {line.price}, {line.proposed} now "
                    "(Reprice saved purchases to accept)"
                )
            state.ledger.append(out)
        if held:
            entry["active"].append(item.offer.id)
        reason = next((line.reason for line in item.lines if line.reason is not None), None)
        if reason is not None:
            entry["inactive"].append({"answer": item.offer.id, "reason": reason})
            entry["pending"] += 1
        kept = [line for line in item.lines if line.reason is None or line.counted]
        if kept:
            self.record.setdefault(item.step.id, {})[item.offer.id] = [
                [_plain(line.delta), line.price] for line in kept
            ]

    # -- the card ------------------------------------------------------------------

    def keep_differences(self) -> None:
        """The values bought, through the writer, keeping a numeric target's hand-made
        difference (module doc); the record keeps them and the paid lines."""
        state = self.state
        writer = state.writer
        layer = writer.layer
        before = state.previous.get(BOUGHT)
        before = before if isinstance(before, dict) else {}
        bought: dict[str, int | float] = {}
        for path, target in self.spots.items():
            value = self.reached[path]
            if target.tiers is not None:
                tier = target.tiers[int(value)]
                now = writer.writes[path] if path in writer.writes else writer.own(path)
                writer.write(path, {**now, "tier": tier} if isinstance(now, dict) else tier)
                continue
            bought[path] = _plain(value)
            if layer is None or path not in layer.overrides or path not in layer.writes:
                writer.write(path, _plain(value))
                continue
            was = _number(before.get(path, layer.writes[path]))
            now_value = _number(layer.overrides[path])
            difference = now_value - was if now_value is not None and was is not None else 0
            final = max(target.low, min(target.high, value + difference))
            writer.write(path, layer.writes[path], shown=_plain(final))
        if bought:
            state.saved[BOUGHT] = bought
        if self.record:
            state.saved[RECORD] = self.record


__all__ = ["MAX_LINES", "Spot", "buy_all", "curve", "run", "spot"]


def view(look: Look, step: SpendStep) -> list[Control]:
    """The pool, then each offer open now (or bought before) with what its target holds, a
    count to buy and what its purchases cost."""
    buys = look.answer(step.id).get("buys") or {}
    offered = look.entry.get("offered") or []
    paid: dict[str, int] = {}
    for line in look.ledger:
        if line.get("step") == step.id and line.get("active"):
            paid[line["offer"]] = paid.get(line["offer"], 0) + int(line.get("price") or 0)
    controls: list[Control] = [*look.pool_line(step.pool)]
    for offer in step.offers:
        if offer.id not in offered and offer.id not in buys:
            continue
        count = buys.get(offer.id, 0)
        lowers = offer.direction in ("both", "decrease") or bool(offer.credit)
        shown = look.target_value(target_key(offer.target))
        if paid.get(offer.id):
            shown += f" · cost {paid[offer.id]}"
        path = ("steps", step.id, "buys", offer.id)
        controls.append(
            Count(offer.label, path, count, count > 0 or lowers, True, shown, f"buy-{offer.id}")
        )
    return controls
