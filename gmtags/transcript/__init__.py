"""Saved chats: read and write them, reprocess, rebuild, and read their history (SPEC §6)."""

from gmtags.transcript.chat import Chat, TranscriptError, parse_chat, read_chat, write_chat
from gmtags.transcript.rebuild import Contradiction, Rebuilt, rebuild
from gmtags.transcript.reprocess import Reprocessed, reprocess
from gmtags.transcript.seeds import derive_seed
from gmtags.transcript.state import state

__all__ = [
    "Chat",
    "Contradiction",
    "Rebuilt",
    "Reprocessed",
    "TranscriptError",
    "derive_seed",
    "parse_chat",
    "read_chat",
    "rebuild",
    "reprocess",
    "state",
    "write_chat",
]
