"""Seeds derived from where a reply stands, never stored secrets (SPEC §6, §7.1).

Every seed is the first 8 bytes (big-endian) of the sha256 of its parts
joined with NUL and encoded UTF-8, with the top bit cleared so it fits a
signed 64-bit integer (and an SQLite INTEGER). Python's `hash()` is never
used: it is salted per process.

- A saved chat's swipe `k` of message `n` in chat `c` (SPEC §6):
  `"gmtags-seed-v1" NUL c NUL decimal(n) NUL decimal(k)`; `n` is the 0-based
  message line (metadata excluded), `k` the 0-based swipe.
- A reply the proxy makes, node `i` of chat `c` (SPEC §7.1; a decision: the
  node's id is fixed when its request arrives, so two replies racing on one
  message never share dice): `"gmtags-node-seed-v1" NUL c NUL decimal(i)`.
- A creation roll of the character builder (SPEC §10: "each roll from its
  own stream (seed, step, roll, attempt)"), try `t` of a `best` roll (0 for
  any other): `"gmtags-creation-v1" NUL decimal(seed) NUL step NUL roll NUL
  decimal(attempt) NUL decimal(t)`, so the order steps are answered in never
  changes a roll.
"""

from __future__ import annotations

import hashlib


def _seed(*parts: str) -> int:
    key = "\0".join(parts).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") & (2**63 - 1)


def derive_seed(chat_id: str, message: int, swipe: int) -> int:
    """The seed that rolls swipe `swipe` of message `message` of saved chat `chat_id`."""
    return _seed("gmtags-seed-v1", chat_id, str(message), str(swipe))


def derive_node_seed(chat_id: str, node: int) -> int:
    """The seed that rolls the proxy's reply node `node` of chat `chat_id`."""
    return _seed("gmtags-node-seed-v1", chat_id, str(node))


def derive_creation_seed(seed: int, step: str, roll: str, attempt: int, trial: int = 0) -> int:
    """The seed of one creation roll: the answers' `seed`, the step, the roll's key, the
    attempt (`retry` raises it) and the try of a `best` roll (SPEC §10)."""
    return _seed("gmtags-creation-v1", str(seed), step, roll, str(attempt), str(trial))
