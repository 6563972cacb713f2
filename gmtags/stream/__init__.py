"""The stream filter: process a response chunk by chunk as the model writes it (SPEC §1)."""

from gmtags.stream.processor import StreamProcessor

__all__ = ["StreamProcessor"]
