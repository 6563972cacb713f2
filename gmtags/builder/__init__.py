"""The guided character builder (004; SPEC §10; design notes in shared/BUILDER.md).

- `model`: the typed `sheet.builder` (and `party.builder`), checked at import
  with every problem at its path;
- `answers`: the answers document of SPEC §10, read strictly;
- `build`: `build_character`, the card recomputed from the ruleset, the
  answers and the card (`steps` walks the step kinds, `card` keeps what is
  the player's, `scores` and `training` are the arithmetic of grants, `dice`
  the creation rolls).

Built so far: the step kinds of BUILDER chunk B (catalog, fields, abilities,
trained, startingGear, choices) and their grants. Not yet: allocate, spend,
rows, roll and initialize steps, pools and ledgers, profiles, quotas,
constraints, described characters, borrowed catalogs and the party builder
(later parts of the builder).
"""

# The builder's models read the ruleset's (catalogs, sheet) and the ruleset's import
# validation reads the builder's: loading the ruleset package first keeps the order one way.
import gmtags.ruleset  # noqa: F401
