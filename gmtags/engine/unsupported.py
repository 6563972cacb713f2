"""The handler for tags whose capability has not landed yet: an honest refusal."""

from __future__ import annotations

from gmtags.engine.context import Applied, Context
from gmtags.state.snapshot import Snapshot
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import refused


def apply_unsupported(tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied:
    """Refuse with reason="unsupported", echoing what the model wrote; nothing changes."""
    pairs = tuple((attr.key, attr.value) for attr in tag.attrs)
    return Applied(snapshot, refused(tag.name, pairs, pairs, "unsupported"))
