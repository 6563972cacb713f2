"""Where a tag head may still begin: `scan.HEAD`'s partial match, without partial matching.

The stream filter holds a `[` back while what follows it may still become a
tag head (`[`, `[cl`, `[skill_ch`, `[clock \t`): a proper prefix of a match of
`gmtags.tags.scan.HEAD` that runs to the end of what was received. `regex`
tells that with `partial=True`, but at microseconds a call, many times the
plain search; the filter asks on every chunk that holds a `[` (issue 16). Such
a prefix holds no other `[` and only ASCII (the names, spaces and tabs), so
only the last `[` can start one, and two set lookups say whether it does.

Most `[`s in narration are followed by something no tag name starts with
(`[OOC`, `[1]`); `has_candidate` rules those out with one plain search.
"""

from __future__ import annotations

import regex

from gmtags.tags.scan import TAG_NAMES

_NAMES = frozenset(TAG_NAMES)
_NAME_PREFIXES = frozenset(name[:i] for name in TAG_NAMES for i in range(len(name) + 1))
_INITIALS = "".join(sorted({c for name in TAG_NAMES for c in (name[0].lower(), name[0].upper())}))
_CANDIDATE = regex.compile(rf"\[(?:[{_INITIALS}]|\Z)")


def has_candidate(text: str) -> bool:
    """Whether a `[` in `text` may begin a tag head: a name's initial follows it, or nothing."""
    return _CANDIDATE.search(text) is not None


def open_head(text: str) -> int:
    """Where a proper prefix of a tag head ends `text` (the position of its `[`), else -1."""
    start = text.rfind("[")
    if start < 0:
        return -1
    rest = text[start + 1 :]
    if not rest.isascii():  # and so `lower` folds only ASCII, as HEAD does
        return -1
    name = rest.rstrip(" \t")
    # Spaces or tabs may follow only a whole name (before its colon).
    known = _NAME_PREFIXES if len(name) == len(rest) else _NAMES
    return start if name.lower() in known else -1
