"""The guided character builder (004; SPEC §10; design notes in shared/BUILDER.md).

The builder's steps, pools and profiles are ruleset models (`gmtags.ruleset.builder`); this
package builds a card from them and shows the steps to a player:
- `answers`: the answers document of SPEC §10, read strictly;
- `build`: `build_character`, the card recomputed from the ruleset, the answers and the
  card, in a frozen `state.Context`, the card written through `card.Writer` (an
  append-only record of each change, by the step that made it), the result entries typed
  in `result`; `steps` holds the one table of step kinds (`KINDS`, one `register` line per
  kind) and walks them, `kinds/` holds each kind's run, view and gate in a module of its
  own; `card` keeps what is the player's, `scores`, `training` and `ratings` are the
  arithmetic of grants, `pools`, `accounts` and `priced_rows` the creation pools and their
  ledger, `dice` and `coins` the creation rolls;
- `quotas` and `constraints`: counted picks and creation rules, as badges;
- `profiles`: creation profiles, `reads.before` and entry-choice slots counted from the
  sheet;
- `described`: described characters (BUILDER H1–H2: a filled card opens described,
  `described: false` is Done);
- `party`: the party builder's view of the ruleset and its members' fields;
- `controls` and `view`: each step's view, the controls the page and the wizard draw;
  `wizard` and `wizard_view`: the terminal wizard of `gmtags character new`.
"""

# The ruleset package first: its models are what every module here reads.
import gmtags.ruleset  # noqa: F401
