"""The table from tag name to handler (STYLE 1: handlers are data, not an if-chain).

A new tag is a new module plus one line here; the scanner never changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gmtags.engine.clock import apply_clock
from gmtags.engine.context import TagHandler
from gmtags.engine.sheet import apply_sheet
from gmtags.engine.skill_check import apply_skill_check

HANDLERS: Mapping[str, TagHandler] = MappingProxyType(
    {
        "clock": apply_clock,
        "sheet": apply_sheet,
        "skill_check": apply_skill_check,
    }
)
