"""gmtags/transcript/seeds.py: seeds derived from (chat id, message, swipe)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from gmtags.transcript.seeds import derive_seed


class TestDeriveSeed:
    def test_documented_formula(self) -> None:
        """The seed is the first 8 bytes of the documented sha256, top bit cleared."""
        digest = hashlib.sha256(b"gmtags-seed-v1\x00chat\x003\x001").digest()
        assert derive_seed("chat", 3, 1) == int.from_bytes(digest[:8], "big") & (2**63 - 1)

    def test_each_place_has_its_own_seed(self) -> None:
        """Chat, message and swipe each change the seed."""
        seeds = {derive_seed("a", 1, 0), derive_seed("b", 1, 0), derive_seed("a", 2, 0)}
        assert len(seeds | {derive_seed("a", 1, 1)}) == 4

    def test_stable_across_processes(self) -> None:
        """Another interpreter (another hash salt) derives the same seed."""
        code = "from gmtags.transcript.seeds import derive_seed; print(derive_seed('é', 9, 2))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert int(out.stdout) == derive_seed("é", 9, 2)

    def test_fits_a_signed_64_bit_integer(self) -> None:
        """Seeds fit an SQLite INTEGER."""
        assert all(0 <= derive_seed("c", n, 0) < 2**63 for n in range(50))
