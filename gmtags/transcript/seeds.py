"""Seeds derived from a message's place in a saved chat (SPEC §6).

SPEC §6: "Seeds are derived, never stored secrets: reprocessing twice gives
the same file." The seed of swipe `k` of message `n` in chat `c` is the first
8 bytes (big-endian) of

    sha256("gmtags-seed-v1" NUL c NUL decimal(n) NUL decimal(k))

(UTF-8), with the top bit cleared (`gmtags.seeds`, which also derives
the proxy's seeds). `n` is the 0-based message line (metadata excluded), `k`
the 0-based swipe.
"""

from gmtags.seeds import derive_seed

__all__ = ["derive_seed"]
