"""Import validation across the sheet half of a ruleset: every problem, with its JSON path.

The models check shapes; the passes here check what needs the whole file: ids
that repeat (SCHEMA-NOTES §1), references to things that do not exist, live
reads where no live state exists yet, derived order, wound-track rules,
untrained rules that could never change a roll, rests, the party sheet, and
what the resolution (000) names elsewhere in the file: the sheet, catalog
`mechanics.check`, layer ladders and `combat`.
Each pass is a `Check` appended to `load.CHECKS`, in the order of `PASSES`;
all of them run and every problem is reported, never only the first.

Seed sections named below are from 002 unless said otherwise; the resolution
passes at the end implement 000.
"""

from __future__ import annotations

from collections.abc import Callable

from gmtags.errors import Problem
from gmtags.ruleset.load import CHECKS
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.validate.catalogs import (
    check_catalog_checks,
    check_catalog_contextual,
    check_catalog_headers,
    check_catalog_mechanics,
    check_catalog_rows,
)
from gmtags.ruleset.validate.combat import check_combat_health, check_resolution_combat
from gmtags.ruleset.validate.ids import check_duplicate_ids
from gmtags.ruleset.validate.index import SheetIndex
from gmtags.ruleset.validate.layers import check_layer_ladders
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
    check_layer_ladders,
    check_resolution_combat,
)
"""The passes, in the order their problems are reported."""


def validate(ruleset: Ruleset) -> list[Problem]:
    """Every problem the passes find, in their order; the sheet index is built once."""
    index = SheetIndex.of_sheet(ruleset)
    return [problem for check in PASSES for problem in check(ruleset, index)]


CHECKS.append(validate)
