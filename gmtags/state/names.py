"""How character names are matched (SPEC §4)."""

from __future__ import annotations

import unicodedata

import regex

PARTY_KEY = "$party"
"""The reserved `rulesetLive` key of the shared party sheet's live values."""

_MARKS = regex.compile(r"\p{M}+")
_OTHER = regex.compile(r"[^\p{L}\p{N}]+")


def normalize_name(name: str) -> str:
    """NFKD, combining marks removed, lower-cased, other runs made one space, trimmed.

    "Élise  the-Quiet" → "elise the quiet".
    """
    decomposed = _MARKS.sub("", unicodedata.normalize("NFKD", name))
    return _OTHER.sub(" ", decomposed.lower()).strip()
