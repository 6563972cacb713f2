"""Import validation across the sheet half of a ruleset: every problem, with its JSON path.

The models check shapes; the passes here check what needs the whole file: ids
that repeat (SCHEMA-NOTES §1), references to things that do not exist, live
reads where no live state exists yet, derived order, wound-track rules,
untrained rules that could never change a roll, rests, the party sheet, and
what the resolution (000) names elsewhere in the file: the sheet, catalog
`mechanics.check`, layer ladders and `combat`, and (004) what the guided
builders and catalog `grants` name (`validate.builder`).
`gmtags.ruleset.load.load_ruleset` calls `validate` once the models have read
the shapes: the passes run in the order of `PASSES`, every one whose sections
(`READS`) have sound shapes, and every problem is reported, never only the
first. The sheet's index is built once and handed to each.

Seed sections named below are from 002 unless said otherwise; the resolution
passes at the end implement 000.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate.builder import (
    check_builder,
    check_builder_grants,
    check_builder_reads,
    check_party_builder,
)
from gmtags.ruleset.validate.catalogs import (
    check_catalog_checks,
    check_catalog_contextual,
    check_catalog_headers,
    check_catalog_mechanics,
    check_catalog_rows,
)
from gmtags.ruleset.validate.combat import (
    check_battle_refs,
    check_combat_health,
    check_combat_refs,
    check_resolution_combat,
)
from gmtags.ruleset.validate.ids import check_duplicate_ids
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.items import check_item_entries, check_items_values
from gmtags.ruleset.validate.layers import (
    check_layer_catalogs,
    check_layer_currencies,
    check_layer_fields,
    check_layer_ladders,
)
from gmtags.ruleset.validate.live import check_live_pools, check_live_states, check_live_tracks
from gmtags.ruleset.validate.party import check_gm_summary, check_party
from gmtags.ruleset.validate.resolution import check_resolution_common, check_resolution_refs
from gmtags.ruleset.validate.rests import check_rests
from gmtags.ruleset.validate.sheet import (
    check_advancement,
    check_derived,
    check_entries,
    check_fields,
    check_formulas,
    check_lists,
)

Pass = Callable[[Ruleset, SheetIndex], list[Problem]]
"""A validation pass: the parsed ruleset and its sheet index → every problem it finds."""

PASSES: tuple[Pass, ...] = (
    check_duplicate_ids,
    check_entries,
    check_fields,
    check_derived,
    check_lists,
    check_live_pools,
    check_live_tracks,
    check_live_states,
    check_formulas,
    check_resolution_common,
    check_advancement,
    check_rests,
    check_party,
    check_gm_summary,
    check_combat_health,
    check_resolution_refs,
    check_catalog_headers,
    check_catalog_rows,
    check_catalog_mechanics,
    check_catalog_checks,
    check_catalog_contextual,
    check_builder,
    check_builder_reads,
    check_builder_grants,
    check_party_builder,
    check_layer_ladders,
    check_layer_fields,
    check_layer_catalogs,
    check_layer_currencies,
    check_items_values,
    check_item_entries,
    check_combat_refs,
    check_battle_refs,
    check_resolution_combat,
)
"""The passes, in the order their problems are reported."""


_SHEET = frozenset({"sheet", "items"})
READS: Mapping[Pass, frozenset[str]] = MappingProxyType(
    {
        check_duplicate_ids: _SHEET | {"party", "resolution", "rests"},
        check_entries: _SHEET | {"resolution"},
        check_fields: _SHEET,
        check_derived: _SHEET,
        check_lists: _SHEET,
        check_live_pools: _SHEET,
        check_live_tracks: _SHEET,
        check_live_states: _SHEET,
        check_formulas: _SHEET | {"resolution"},
        check_resolution_common: _SHEET | {"resolution"},
        check_advancement: _SHEET,
        check_rests: _SHEET | {"rests"},
        check_party: _SHEET | {"party"},
        check_gm_summary: _SHEET | {"gm"},
        check_combat_health: _SHEET | {"combat"},
        check_resolution_refs: _SHEET | {"resolution"},
        check_catalog_headers: _SHEET | {"id", "catalogs", "combat"},
        check_catalog_rows: _SHEET | {"catalogs"},
        check_catalog_mechanics: _SHEET | {"catalogs"},
        check_catalog_checks: _SHEET | {"catalogs", "resolution"},
        check_catalog_contextual: _SHEET | {"catalogs"},
        check_builder: _SHEET | {"catalogs", "resolution"},
        check_builder_reads: _SHEET | {"catalogs", "resolution"},
        check_builder_grants: _SHEET | {"catalogs", "resolution"},
        check_party_builder: _SHEET | {"party", "catalogs", "resolution"},
        check_layer_ladders: frozenset({"layers", "resolution"}),
        check_layer_fields: _SHEET | {"layers"},
        check_layer_catalogs: frozenset({"layers", "catalogs"}),
        check_layer_currencies: frozenset({"layers", "items"}),
        check_items_values: _SHEET,
        check_item_entries: _SHEET | {"catalogs"},
        check_combat_refs: _SHEET | {"combat"},
        check_battle_refs: _SHEET | {"battle"},
        check_resolution_combat: frozenset({"resolution", "combat"}),
    }
)
"""The top-level sections each pass reads: a pass runs only when all of them have sound
shapes (a stand-in for a broken section is never read)."""


def validate(ruleset: Ruleset, broken: frozenset[str] = frozenset()) -> list[Problem]:
    """Every problem the passes find, in their order, leaving out each pass that reads a
    section in `broken` (one with shape errors); the sheet index is built once."""
    index = SheetIndex.of_sheet(ruleset)
    return [
        problem
        for check in PASSES
        if not READS[check] & broken
        for problem in check(ruleset, index)
    ]
