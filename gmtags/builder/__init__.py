"""The guided character builder (004; SPEC §10; design notes in shared/BUILDER.md).

- `model`: the typed `sheet.builder` (and `party.builder`), checked at import
  with every problem at its path;
- `answers`: the answers document of SPEC §10, read strictly;
- `build`: `build_character`, the card recomputed from the ruleset, the
  answers and the card (`steps` walks the step kinds, `kinds/` holds the
  allocate, spend, rows, roll and initialize kinds, `abilities` the scores,
  `card` keeps what is the player's, `scores`, `training` and `ratings` are
  the arithmetic of grants, `pools` and `priced_rows` the creation pools and
  their ledger, `dice` and `coins` the creation rolls);
- `quotas` and `constraints`: counted picks and creation rules, as badges;
- `profiles`: creation profiles, `reads.before` and entry-choice slots counted
  from the sheet;
- `described`: described characters (BUILDER H1–H2: a filled card opens
  described, `described: false` is Done);
- `party`: the party builder's view of the ruleset and its members' fields;
- `cli` and `wizard`: `gmtags character build`, `show` and `new`.

Built: every step kind of 004 with its grants, pools, prices and ledger,
quotas and constraints, profiles, `reads.before`, entry-choice slots counted
from the sheet, described characters (`described`), the party builder
(`party`: the shared sheet over the party's fields and lists, `fromMembers`
read from the members), and the terminal wizard.
"""

# The builder's models read the ruleset's (catalogs, sheet) and the ruleset's import
# validation reads the builder's: loading the ruleset package first keeps the order one way.
import gmtags.ruleset  # noqa: F401
