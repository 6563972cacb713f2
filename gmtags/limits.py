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


DEFAULT_LIMITS = Limits()
