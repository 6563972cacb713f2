"""Every limit that holds under any input, in one place (SPEC §2 and §8).

Limits are passed down explicitly (a `Limits` value rides on the engine
context) so a test can tighten them, and nothing reads a global.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds the engine enforces on one response."""

    commands_per_response: int = 40
    """SPEC §2: later commands are refused with reason="too-many"."""

    tag_length: int = 4096
    """SPEC §2: a tag spans at most this many characters from `[` to `]`."""

    dice_per_roll: int = 20
    """SPEC §8: a sum roll throws at most this many dice."""

    rerolls: int = 100
    """SPEC §8: `until` rerolls stop after this many re-throws."""

    integer_digits: int = 9
    """SPEC §8: numbers written in a tag are read with at most this many digits."""

    receipt_value_length: int = 240
    """Receipt values are cut to this length so a receipt always stays one readable tag."""

    now_length: int = 240
    """A `[sheet:]` receipt's `now=` summary (and card) is cut to this length."""

    max_amount: int = 100_000
    """ENGINE-NOTES §6: a sheet command's amount is 1..this (either way on a wound track)."""

    apply_names: int = 4
    """004, contextual: `apply=` names at most this many rows or entries."""

    effect_dice: int = 20
    """004, contextual: the dice the rows and entries `apply=` names add to one check."""

    scaling_steps: int = 5
    """ENGINE-NOTES §5: a scaling catalog entry's effect is multiplied at most this many times."""

    dc_range: tuple[int, int] = (-100, 1000)
    """000, dice-sum (SCHEMA-NOTES §5): a written `dc` clamps into this range."""

    shift_range: tuple[int, int] = (-100, 100)
    """000, roll-against: a written `dc` moves the target within this range."""


DEFAULT_LIMITS = Limits()
