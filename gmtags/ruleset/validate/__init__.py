"""Import validation across the sheet half of a ruleset: every problem, with its JSON path.

The models check shapes; the passes here check what needs the whole file: ids
that repeat (SCHEMA-NOTES §1), references to things that do not exist, live
reads where no live state exists yet, derived order, wound-track rules,
untrained rules that could never change a roll, rests, the party sheet, and
what the resolution (000) names elsewhere in the file: the sheet, catalog
`mechanics.check`, layer ladders and `combat`, and (004) what the guided
builders and catalog `grants` name (`validate.builder`).
`gmtags.ruleset.read` calls `validate` once the models have read the shapes:
the passes run in the order of `PASSES`, every one whose parts (`READS`: the
top-level sections and the sheet's keys it looks names up in) have sound
shapes, and every problem is reported, never only the first. The sheet's index
is built once and handed to each.

Seed sections named below are from 002 unless said otherwise; the resolution
passes at the end implement 000.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from gmtags.errors import Problem
from gmtags.ruleset.character_sheet import Sheet
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


def _sheet(*keys: str) -> frozenset[str]:
    """Keys of the sheet as parts of the file (`sheet.fields`)."""
    return frozenset(f"sheet.{key}" for key in keys)


SHEET_PARTS = _sheet(*(info.alias or name for name, info in Sheet.model_fields.items()))
"""Each key of the sheet is a part of its own: one with shape problems is left out alone."""

_NONE: frozenset[str] = frozenset()
_BUILDER = _sheet(
    "fields", "abilities", "skills", "saves", "lists", "skillTiers", "saveTiers", "bonusRange"
) | {"resolution", "catalogs", "items"}
READS: Mapping[Pass, frozenset[str]] = MappingProxyType(
    {
        check_duplicate_ids: _NONE,
        check_entries: _NONE,
        check_fields: _NONE,
        check_derived: _NONE,
        check_lists: _NONE,
        check_live_pools: _NONE,
        check_live_tracks: _NONE,
        check_live_states: _NONE,
        check_formulas: _NONE,
        check_resolution_common: _NONE,
        check_advancement: _sheet("fields"),
        check_rests: _sheet("live", "lists"),
        check_party: _NONE,
        check_gm_summary: _sheet("fields", "derived", "lists"),
        check_combat_health: _NONE,
        check_resolution_refs: _NONE,
        check_catalog_headers: _NONE,
        check_catalog_rows: _sheet("builder") | {"party"},
        check_catalog_mechanics: _NONE,
        check_catalog_checks: frozenset({"resolution"}),
        check_catalog_contextual: _NONE,
        check_builder: _BUILDER,
        check_builder_reads: _sheet("skills", "saves"),
        check_builder_grants: _BUILDER | _sheet("builder") | {"party"},
        check_party_builder: _sheet("skillTiers", "saveTiers")
        | {"party", "resolution", "catalogs", "items"},
        check_layer_ladders: frozenset({"resolution"}),
        check_layer_fields: _sheet("fields"),
        check_layer_catalogs: frozenset({"catalogs"}),
        check_layer_currencies: frozenset({"items"}),
        check_items_values: _NONE,
        check_item_entries: _NONE,
        check_combat_refs: _NONE,
        check_battle_refs: _NONE,
        check_resolution_combat: frozenset({"resolution"}),
    }
)
"""The parts of the file (top-level sections, and the sheet's keys: `SHEET_PARTS`) each pass
looks names up in: a pass runs only when all of them have sound shapes. What a pass only walks
needs no entry: a part with shape problems is left out (walked as empty) or a stand-in that
holds nothing to report (`gmtags.ruleset.read`), and a pass finds only what is wrong in what it
walks. A pass that looks names up in several parts, each for its own rule, asks for each
(`SheetIndex.parsed`), and so does every value reference (`validate.refs.check_ref`,
`hide_when`): a name is never reported missing from a part that did not parse."""


def validate(ruleset: Ruleset, broken: frozenset[str] = frozenset()) -> list[Problem]:
    """Every problem the passes find, in their order, leaving out each pass that reads a
    part in `broken` (one with shape errors: a top-level section or a key of the sheet; a
    broken `sheet` is every key of it); the sheet index is built once."""
    if "sheet" in broken:
        broken |= SHEET_PARTS
    index = SheetIndex.of_sheet(ruleset, broken)
    return [
        problem
        for check in PASSES
        if not READS[check] & broken
        for problem in check(ruleset, index)
    ]
