"""Snapshot history: records, snapshots by content hash, and the SQLite store (SPEC §6).

The operations on a saved chat (regenerate, continue, select a swipe, delete,
edit) are in `gmtags.history.replay`, which is not imported here because it
builds on `gmtags.transcript`, which builds on this package.
"""

from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.history.snapshots import SnapshotTable, canonical_json, snapshot_hash
from gmtags.history.store import HistoryStore

__all__ = [
    "History",
    "HistoryError",
    "HistoryStore",
    "MessageRecord",
    "SnapshotTable",
    "SwipeRecord",
    "canonical_json",
    "snapshot_hash",
]
