"""The registry of resolution kinds: `resolution.kind` → everything the kind brings.

000, "Tipos de resolución": five kinds. A new kind is a model file in
`gmtags/ruleset/resolution/` (listed in its `MODELS`), a file here in
`gmtags/checks/` ending with its `KIND`, and one line below;
`tests/checks/test_kinds.py` proves every kind provides every part and that
this registry and the models agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gmtags.checks import dice_highest, dice_pool, dice_sum, roll_against, symbol_pool
from gmtags.checks.kind import Kind
from gmtags.ruleset.resolution import ResolutionRules

KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            dice_sum.KIND,
            dice_pool.KIND,
            dice_highest.KIND,
            roll_against.KIND,
            symbol_pool.KIND,
        )
    }
)
"""Every kind by `resolution.kind`."""


def kind_of(rules: ResolutionRules) -> Kind:
    """The kind a resolution belongs to."""
    return KINDS[rules.kind_name]
