"""Reprocessed and rebuilt chats, byte for byte as gmtags wrote them before issue 16's speed work.

The files were written by the commit before that work (f50b3c1) with one change only: the
snapshot names keep the order of the cards (`gmtags.history.snapshots.ORDERED`), so the
names of snapshots whose cards are not in sorted order differ from what f50b3c1 wrote.

Each case of `golden/` is an input chat (the three fixture transcripts, `odd.jsonl`, and
`generated.jsonl`: 120 messages of `benchmarks/bench_transcript.py`'s generator) and what
the commit before the speed work wrote for it: `NAME.reprocessed.jsonl` (reprocessed from
`crows-state.json`), `NAME.rebuilt.jsonl` (rebuilt from it without rolling) and
`NAME.rebuilt.txt` (the contradictions the rebuild reported, one a line).

`odd.jsonl` holds what a byte-preserving writer must survive: a byte-order mark and CRLF
line ends, a blank line, a repeated key, numbers spelled `1e3`, `-0`, `0.50` and `1E3`, an
escaped `é` and an escaped lone surrogate half, an `extra` that is not an object, a
`swipe_info` missing, shorter than `swipes` or holding a non-object, a `swipe_id` out of
range, an empty `swipes` list, spaces around members, and a narrator note.
"""

from __future__ import annotations

import pytest

from gmtags import Ruleset, Snapshot
from gmtags.transcript import parse_chat, read_chat, rebuild, reprocess
from tests.transcript.conftest import GOLDEN, GROUP, HEIST, PLAIN

CASES = {
    "heist": HEIST,
    "group": GROUP,
    "plain": PLAIN,
    "odd": GOLDEN / "odd.jsonl",
    "generated": GOLDEN / "generated.jsonl",
}


def expected(name: str) -> str:
    """A golden file's text, read without translating its line ends."""
    return (GOLDEN / name).read_bytes().decode("utf-8", "surrogatepass")


@pytest.mark.parametrize("name", sorted(CASES))
class TestGolden:
    def test_reprocess_writes_the_golden_file(
        self, name: str, crows: Ruleset, start: Snapshot
    ) -> None:
        """Reprocessing writes exactly the bytes the golden file holds."""
        done = reprocess(read_chat(CASES[name]), crows, start)
        assert done.chat.dumps() == expected(f"{name}.reprocessed.jsonl")

    def test_rebuild_writes_the_golden_file_and_report(
        self, name: str, crows: Ruleset, start: Snapshot
    ) -> None:
        """Rebuilding the input writes the golden file and reports the golden contradictions."""
        built = rebuild(read_chat(CASES[name]), crows, start)
        assert built.chat.dumps() == expected(f"{name}.rebuilt.jsonl")
        assert "".join(f"{c}\n" for c in built.contradictions) == expected(f"{name}.rebuilt.txt")

    def test_a_reprocessed_chat_read_back_is_left_as_it_is(self, name: str, crows: Ruleset) -> None:
        """Reprocessing it again, rebuilding it, or reprocessing from its middle changes no byte."""
        if name == "plain":
            pytest.skip("a plain chat stores no start to run again from")
        text = expected(f"{name}.reprocessed.jsonl")
        chat = parse_chat(text, CASES[name].stem)
        assert reprocess(chat, crows).chat.dumps() == text
        built = rebuild(chat, crows)
        assert built.contradictions == ()
        assert built.chat.dumps() == text
        indexes = list(chat.assistant_indexes())
        assert reprocess(chat, crows, first=indexes[len(indexes) // 2]).chat.dumps() == text
