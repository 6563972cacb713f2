"""Creation pools and priced picks (004, "Presupuestos compartidos y compras con precio", 1.153,
and "Selecciones y filas con precio", 1.159; BUILDER D1, D9, D14, D15, D19).

004: "Declara hasta 12 reservas de creación en sheet.builder.pools. Varios pasos spend
pueden usar una misma reserva; las reservas separadas mantienen independientes los puntos de
ocupación y los de interés personal. Los presupuestos son referencias de valor no vivas …
Su valor resuelto debe ser finito y estar entre 0 y 100.000. Una fuente que falta está
'sin configurar'." A pool is worked out once every step has run (after the scores, the
training and the allocate stages: BUILDER §2.2), in a finisher a priced catalog step or a
spend step registers (`settle`, which the build gives the state: `State.register_settle`;
the build registers it after the walk when no shown step did): its budget is read on the
sheet then, before any purchase;
the priced picks are paid first, then the spend steps buy (`gmtags.builder.kinds.spend`).
`res.pools[<pool>]` is `{budget, spent, credit, remaining}`, remaining = budget − spent +
credit, and every priced pick is a ledger line (`{step, offer: <entry>, delta: 1, price,
active}`) before the spend steps' lines.

Credit: "Las reservas tienen un crédito cero de forma predeterminada. Fija creditLimit en el
crédito total máximo y, de forma opcional, añade hasta 12 caps … Los topes cuentan los
créditos brutos, con independencia del gasto positivo." `Account.takes`
(`gmtags.builder.accounts`) says whether a credit fits the limit and every cap whose
`filter` is one of the offer's `tags`.

Priced picks (1.159): "El coste de un paso de catálogo es un número o { "filter": "tier" },
el propio filtro numérico de la entrada … un precio negativo es un crédito, limitado al
creditLimit de la reserva … No se ofrece una selección que la reserva no pueda pagar. Las
selecciones y las filas con precio se pagan primero y nunca se venden."

Decisions where the seed is silent:
- Points are whole: a budget that does not resolve to a whole number from 0 to 100,000 (or
  reads nothing) leaves its pool "not configured" (budget 0): its priced picks are not
  offered and its spend steps buy nothing, each with that reason; a price that is not a whole
  number (a `{filter}` reading a fraction, a text or nothing) makes the entry not offered.
- Priced picks are paid in step order and, within a step, in selection order; the credit
  picks (negative prices) of a pool are counted first, each while it fits the credit limit,
  then the others, each while the pool's budget plus credit less the picks paid before it
  covers it. A saved pick the pool cannot pay (or whose credit passes the limit) is not
  offered: inactive, kept in the answers, with the reason "pool '<id>' cannot pay it" ("…
  takes no more credit"); the earliest picks hold (BUILDER §3.3: new data never evicts old).
  An entry not picked is offered while what the priced picks leave covers its price: the
  spend steps' purchases never close a pick (priced picks are paid first); a pick that
  leaves the pool overspent suspends the spend lines instead (`kinds.spend`), never a pick.
- A saved pick its pool does not pay counts in its step's badge, as the spend lines that
  do not hold count in theirs (SPEC §10: the badge counts what cannot count).
- The gate is read on the build before (as `offeredWhen` is, BUILDER §2.2 step 5): the
  finisher records what each pool could pay, and `unpaid` closes the rest on the next build.
- Caps name offer `tags`; catalog entries have none, so only the credit limit holds a
  credit pick.
- Every declared pool is in `res.pools` from the start, at its budget with nothing spent
  (remaining = budget), whether or not a shown step pays from it: the build settles the
  pools whenever the builder declares one (`gmtags.builder.build`), so an initialize step's
  `remaining` reads an unused pool too (004: "lo que una reserva del creador ha dejado sin
  gastar").
- Profile `budgets` (D21) replace a pool's own budget (`gmtags.builder.profiles`). Priced
  rows (D19 rows, 1.206): a rows step can add its rows' prices as `Charge`s to
  `State.charges` before the pools settle, and they are paid as priced picks are.
"""

from __future__ import annotations

from gmtags.builder import profiles
from gmtags.builder.accounts import CANNOT_PAY, NO_CREDIT, Charge, open_account, pick_price
from gmtags.builder.kinds import spend
from gmtags.builder.result import LedgerLine
from gmtags.builder.state import Entry, State
from gmtags.ruleset.builder.steps import CatalogStep


def priced_picks(state: State) -> list[Charge]:
    """Every active pick of a shown priced catalog step, in step and selection order, then the
    charges other step kinds added."""
    found: list[Charge] = []
    for step in state.builder.steps:
        if isinstance(step, CatalogStep) and step.pool is not None:
            for picked in state.picked.get(step.id, []):
                found.append(
                    Charge(step.pool, step.id, picked.entry.id, pick_price(step, picked.entry))
                )
    return found + list(state.charges)


def settle(state: State, by_id: dict[str, Entry]) -> None:
    """The pools of this build: budgets, priced picks, then every spend step (module doc)."""
    values = state.values()
    profiles.decide_late(state, values)  # budgets-only profiles: read where budgets are
    accounts = {
        pool.id: open_account(pool, values, profiles.budget(state, pool))
        for pool in state.builder.pools
    }
    state.accounts = accounts
    unpaid: dict[tuple[str, str], str] = {}
    charges = priced_picks(state)
    for charge in sorted(charges, key=lambda c: 0 if (c.price or 0) < 0 else 1):
        account = accounts.get(charge.pool)
        if account is None:
            continue
        price = charge.price
        if account.reason is not None or price is None:
            unpaid[(charge.step, charge.item)] = CANNOT_PAY.format(charge.pool)
        elif price < 0 and not account.takes(-price):
            unpaid[(charge.step, charge.item)] = NO_CREDIT.format(charge.pool)
        elif price > 0 and account.remaining < price:
            unpaid[(charge.step, charge.item)] = CANNOT_PAY.format(charge.pool)
        else:
            account.pay(price)
    for charge in charges:
        if charge.pool in accounts:
            active = (charge.step, charge.item) not in unpaid
            line: LedgerLine = {
                "step": charge.step,
                "offer": charge.item,
                "delta": 1,
                "price": charge.price or 0,
                "active": active,
            }
            state.ledger.append(line)
    for account in accounts.values():
        account.left_for_picks = account.remaining
        account.credit_for_picks = account.credit
    state.unpaid = unpaid
    spend.buy_all(state, by_id, values)
    for step in state.builder.steps:
        pool = getattr(step, "pool", None)
        entry = by_id.get(step.id)
        if pool not in accounts or entry is None or not entry["shown"]:
            continue
        account = accounts[pool]
        if account.reason is not None:
            entry["reasons"].append(f"pool '{pool}' is {account.reason}")
            entry["pending"] += 1
        elif account.remaining < 0:
            entry["reasons"].append(f"pool '{pool}' is overspent by {-account.remaining}")
            entry["pending"] += 1
        if isinstance(step, CatalogStep):
            refused = (CANNOT_PAY.format(pool), NO_CREDIT.format(pool))
            entry["pending"] += sum(1 for item in entry["inactive"] if item["reason"] in refused)
    for pool_id, account in accounts.items():
        state.pools[pool_id] = account.entry()


__all__ = ["priced_picks", "settle"]
