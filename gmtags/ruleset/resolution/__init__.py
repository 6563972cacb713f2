"""The whole `resolution` object: one strict model per kind, tagged by `kind`.

000 ("Pruebas de conjuntos de reglas") is the authority: "Tipos de
resolución" names the five kinds, each with a section of its own, and
"Franjas de resultado", "Pruebas que tiran a su manera" and "Gastar para
cambiar una tirada" add outcome tiers, overrides and spend to all of them.
SCHEMA-NOTES §5 gives the older engine's limits for dice-sum and dice-pool
(and §9 those of a catalog entry's `mechanics.check`); where the seeds add a
key or a newer limit, the seeds win.

Every model is strict (unknown keys are refused) and checks the rules between
its own keys (a face a rule names must be on the die, …), reporting every
problem at its plain JSON path below `resolution` (`resolution.cancel.upTo`).
What needs the rest of the file — a spend's pool, the skills an override or a
stance names, value references, catalog `mechanics.check`, layer ladders and
`combat` — is checked by `gmtags.ruleset.validate`.

`Ruleset.resolution` stays the JSON object it is; `Ruleset.resolution_rules`
is the typed model `parse_resolution` gives. The rules between keys run once
the keys they read have valid shapes, so a file with shape errors lists those
first.

Decisions where the seeds and the notes are silent:
- Limits: at most 16 overrides; every `text` (tier, override, symbol, exact,
  dark) is one prompt-safe line of at most 200, like a tier's; `atLeast` is
  within ±10,000; `success.needed` 1–20; `pastTarget` 1–10,000; `tens.max`
  1–10; `unmodified` 1–20 distinct faces; custom face values ±1,000; a
  roll-against rung's `dc` keeps to the tag's −100..100.
- Defaults: dice-highest rolls d6 with `pool` {min 0, max 20}; a symbol pool
  may omit `difficulty`, but then has no ladder; `target.default` stays
  required beside `target.from` (a stranger has no sheet to read); a stance
  may list no skills (004's row checks name stances of their own).
- Rules that could never fire are refused, as 000 says of faces: `target.from`
  when min = max; an open end that fires on every face; an upgrade to the
  same die; a success or critical symbol that no face shows; `critical.count`
  above the dice that count.
- "Best first" places a tier `on` critical-success above every tier read
  from the number and one `on` critical-failure below them; an `on` tier's
  `success` matches its critical; with `by: "fraction"` every `atLeast` is 1
  or more. `naturals: "shift"` is refused on every kind that throws a varying
  handful (dice-pool, dice-highest, symbol-pool).
- `exceptional` beside `outcomes` is accepted: 000 says a pool with tiers
  leaves it out, so the engine ignores it.
- A critical rule is faces (`from`/`to`) or `pastTarget`, never both;
  `whenTarget` may give both bounds, `atLeast` below `below`.
- An override's `set` changes at least one key and never holds `overrides`;
  a check named in two overrides without `when` is a per-list rule (skills,
  saves and abilities apart). A problem of the resolution an override creates
  is reported below `overrides.N.set` (at the key when `set` holds it), and
  one the ruleset's own resolution already has is reported once, there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import TypeAdapter

from gmtags.ruleset.resolution.common import (
    Found,
    LineError,
    Loc,
    NoSpend,
    PromptSafe200,
    Rung,
    detail,
    distinct,
    problems_of,
    raise_found,
    under,
)
from gmtags.ruleset.resolution.dice_highest import (
    Critical,
    DarkDice,
    DiceHighest,
    HighestPool,
    HighestRung,
)
from gmtags.ruleset.resolution.dice_pool import (
    Botch,
    Cancel,
    DicePool,
    Exact,
    Exceptional,
    FaceRule,
    MechanicsCheck,
    PoolFace,
    PoolLimits,
    PoolRung,
    Stance,
    Target,
)
from gmtags.ruleset.resolution.dice_sum import (
    DiceSum,
    NaturalRule,
    Naturals,
    OpenEnded,
    SumDice,
    SumRung,
)
from gmtags.ruleset.resolution.outcomes import Outcomes, OutcomeTier
from gmtags.ruleset.resolution.overrides import (
    CHECK_WORDS,
    LOCKED_KEYS,
    Override,
    apply_override,
    override_error,
    parse_overrides,
)
from gmtags.ruleset.resolution.pools import PoolDie, SituationalDice
from gmtags.ruleset.resolution.roll_against import (
    AgainstDice,
    AgainstRung,
    CriticalRule,
    CriticalRules,
    RollAgainst,
    Tens,
    WhenTarget,
)
from gmtags.ruleset.resolution.rules import (
    PerCheck,
    RerollRule,
    ResolutionRules,
    Spend,
    SpendEntry,
    StandingReroll,
    ladder_adapter,
    spend_rules,
)
from gmtags.ruleset.resolution.shared import ResolutionKind, SharedKeys
from gmtags.ruleset.resolution.symbol_pool import (
    ExtraDice,
    OpposingDice,
    Symbol,
    SymbolDie,
    SymbolFace,
    SymbolPool,
    SymbolPoolDice,
    SymbolRung,
    SymbolSuccess,
)
from gmtags.ruleset.sheet.common import tagged

Resolution = DiceSum | DicePool | DiceHighest | RollAgainst | SymbolPool
"""A ruleset's resolution, one model per kind."""

MODELS: Mapping[str, type[ResolutionRules]] = {
    model.kind_literal(): model
    for model in (DiceSum, DicePool, DiceHighest, RollAgainst, SymbolPool)
}
"""000, "Tipos de resolución": `resolution.kind` → its model (the registry of everything else a
kind brings is `gmtags.checks.kinds.KINDS`; a test proves the two agree)."""

_RESOLUTION: TypeAdapter[Resolution] = TypeAdapter(
    Annotated[Resolution, tagged("kind", dict(MODELS))]
)


def parse_resolution(raw: Mapping[str, Any]) -> Resolution:
    """Validate a whole `resolution` object by its `kind`.

    Raises `ValidationError` listing every problem at its path below
    `resolution` (`cancel.upTo`, never `dice-pool.cancel.upTo`).
    """
    return _RESOLUTION.validate_python(dict(raw))


__all__ = [
    "CHECK_WORDS",
    "LOCKED_KEYS",
    "MODELS",
    "AgainstDice",
    "AgainstRung",
    "Botch",
    "Cancel",
    "Critical",
    "CriticalRule",
    "CriticalRules",
    "DarkDice",
    "DiceHighest",
    "DicePool",
    "DiceSum",
    "Exact",
    "Exceptional",
    "ExtraDice",
    "FaceRule",
    "Found",
    "HighestPool",
    "HighestRung",
    "LineError",
    "Loc",
    "MechanicsCheck",
    "NaturalRule",
    "Naturals",
    "NoSpend",
    "OpenEnded",
    "OpposingDice",
    "OutcomeTier",
    "Outcomes",
    "Override",
    "PerCheck",
    "PoolDie",
    "PoolFace",
    "PoolLimits",
    "PoolRung",
    "PromptSafe200",
    "RerollRule",
    "Resolution",
    "ResolutionKind",
    "ResolutionRules",
    "RollAgainst",
    "Rung",
    "SharedKeys",
    "SituationalDice",
    "Spend",
    "SpendEntry",
    "Stance",
    "StandingReroll",
    "SumDice",
    "SumRung",
    "Symbol",
    "SymbolDie",
    "SymbolFace",
    "SymbolPool",
    "SymbolPoolDice",
    "SymbolRung",
    "SymbolSuccess",
    "Target",
    "Tens",
    "WhenTarget",
    "apply_override",
    "detail",
    "distinct",
    "ladder_adapter",
    "override_error",
    "parse_overrides",
    "parse_resolution",
    "problems_of",
    "raise_found",
    "spend_rules",
    "under",
]
