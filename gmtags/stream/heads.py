"""Where a tag head may begin in a chunk, for the stream filter's flowing mode (issue 16).

The filter asks on every chunk that holds a `[`, so the questions are asked
as cheaply as they can be, and each is proved equal to `gmtags.tags.scan.HEAD`
(tests/stream/test_heads.py):

- `CANDIDATE`: a `[` that may begin a head (a tag name's initial follows it,
  or nothing yet). Most `[`s in narration fail it (`[OOC`, `[1]`). A stdlib
  `re` pattern, as `HEAD` is: on a few characters a `re` search costs a third
  of a `regex` one.
- `open_head`: a `[` whose text may still become a head (`[`, `[cl`,
  `[skill_ch`, `[clock \t`), a proper prefix of a head that runs to the end.
  `regex` tells that with `partial=True`, at microseconds a call; such a
  prefix holds no other `[` and only ASCII (the names, spaces and tabs), so
  only the last `[` can start one, and two set lookups say whether it does.
"""

from __future__ import annotations

import re

from gmtags.tags.scan import TAG_NAMES

_NAMES = frozenset(TAG_NAMES)
_NAME_PREFIXES = frozenset(name[:i] for name in TAG_NAMES for i in range(len(name) + 1))
_INITIALS = "".join(sorted({c for name in TAG_NAMES for c in (name[0].lower(), name[0].upper())}))

CANDIDATE = re.compile(rf"\[(?:[{_INITIALS}]|\Z)")
"""A `[` that may begin a tag head: a name's initial follows it, or nothing yet."""


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
