"""The part of a streamed response the filter still needs, addressed by absolute position."""

from __future__ import annotations


class Window:
    """The response from `base` on: text before `base` is no longer needed.

    Positions are absolute (counted from the start of the response), so spans
    and receipts never need rebasing when the window is trimmed.
    """

    __slots__ = ("base", "text")

    def __init__(self) -> None:
        self.base = 0
        self.text = ""

    @property
    def end(self) -> int:
        """The absolute position just after the last character received."""
        return self.base + len(self.text)

    def append(self, chunk: str) -> None:
        """Add the next chunk of the response."""
        self.text += chunk

    def slice(self, start: int, end: int) -> str:
        """`response[start:end]`; `start` must not be before `base`."""
        return self.text[start - self.base : end - self.base]

    def find(self, needle: str, start: int, end: int) -> int:
        """The absolute position of `needle` in `response[start:end]`, or -1."""
        found = self.text.find(needle, start - self.base, end - self.base)
        return found if found < 0 else found + self.base

    def trim(self, keep: int) -> None:
        """Forget the text before `keep` once that is worth a copy (amortised linear)."""
        drop = keep - self.base
        if drop > 4096 and drop * 2 > len(self.text):
            self.text = self.text[drop:]
            self.base = keep
