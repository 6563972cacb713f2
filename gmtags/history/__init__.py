"""Snapshot history: records, snapshots by content hash, reply nodes and where a request
stands (SPEC §6, §7.1).

- `records`: a saved chat's history by message and swipe (what a chat file keeps);
- `snapshots`: every game state named by the sha256 of its canonical JSON;
- `fingerprint`: what identifies a reply a client sends back;
- `store`: the store of reply nodes the proxy (and `transcript --db`) keeps, in an SQLite
  file or a PostgreSQL database (`database`), its tables versioned in `schema` and its
  snapshots stored as shared parts (`parts`);
- `anchor`: the stored reply a request goes on from, found by content;
- dice seeds derived from where a reply stands are `gmtags.seeds` (the builder uses them too).

The operations on a saved chat (regenerate, continue, select a swipe, delete,
edit) are in `gmtags.transcript.replay`, which is not imported here because it
builds on `gmtags.transcript`, which builds on this package.
"""

from gmtags.history.fingerprint import Fingerprint, fingerprint
from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.history.snapshots import SnapshotTable, canonical_json, snapshot_hash
from gmtags.history.store import HistoryStore, Node

__all__ = [
    "Fingerprint",
    "History",
    "HistoryError",
    "HistoryStore",
    "MessageRecord",
    "Node",
    "SnapshotTable",
    "SwipeRecord",
    "canonical_json",
    "fingerprint",
    "snapshot_hash",
]
