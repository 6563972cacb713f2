"""Seeds derived from a message's place in the chat (SPEC §6).

SPEC §6: "Seeds are derived, never stored secrets: reprocessing twice gives
the same file." The seed of swipe `k` of message `n` in chat `c` is the first
8 bytes (big-endian) of

    sha256("gmtags-seed-v1" NUL c NUL decimal(n) NUL decimal(k))

(UTF-8), with the top bit cleared so it fits a signed 64-bit integer (and an
SQLite INTEGER). Python's `hash()` is never used: it is salted per process.
`n` is the 0-based message line (metadata excluded), `k` the 0-based swipe.
"""

from __future__ import annotations

import hashlib

_DOMAIN = "gmtags-seed-v1"


def derive_seed(chat_id: str, message: int, swipe: int) -> int:
    """The seed that rolls swipe `swipe` of message `message` of chat `chat_id`."""
    key = "\0".join((_DOMAIN, chat_id, str(message), str(swipe))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") & (2**63 - 1)
