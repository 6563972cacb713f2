"""Receipt text, display narration and cards (SPEC §1, §3)."""

from __future__ import annotations

from gmtags.tags.receipt import Receipt, render_tag
from gmtags.tags.render import Placed, card_text, display_text


def placed_at(text: str, *tags: str) -> list[Placed]:
    out, pos = [], 0
    for tag in tags:
        start = text.index(tag, pos)
        out.append(Placed(start, start + len(tag), Receipt("clock", (), (), "card")))
        pos = start + len(tag)
    return out


class TestRenderTag:
    def test_values_are_cleaned(self) -> None:
        """Quotes, brackets and control characters in values become spaces."""
        text = render_tag("clock", [("name", 'a"b[c]\nd'), ("clear", None)])
        assert text == '[clock: name="a b c d" clear]'

    def test_curly_quotes_are_cleaned(self) -> None:
        """Curly quotes would end a value when read back, so they become spaces."""
        assert render_tag("clock", [("name", "\u201cx\u201d")]) == '[clock: name="x"]'


class TestDisplay:
    def test_tag_alone_on_a_line_removes_the_line(self) -> None:
        """The whole line, line break included, goes when it holds only tags."""
        text = "a\n  [T]  \nb"
        assert display_text(text, placed_at(text, "[T]")) == "a\nb"

    def test_inline_tag_takes_the_space_before(self) -> None:
        """An inline tag is removed with the space before it."""
        text = "a [T] b"
        assert display_text(text, placed_at(text, "[T]")) == "a b"

    def test_inline_tag_at_line_start_takes_the_space_after(self) -> None:
        """With no space before, the space after goes."""
        text = "x\n[T] b"
        assert display_text(text, placed_at(text, "[T]")) == "x\nb"

    def test_two_inline_tags(self) -> None:
        """Two tags in a row each take one space."""
        text = "a [T] [U] b"
        assert display_text(text, placed_at(text, "[T]", "[U]")) == "a b"

    def test_last_line_without_newline(self) -> None:
        """A final line holding only a tag leaves the previous line break in place."""
        text = "a\n[T]"
        assert display_text(text, placed_at(text, "[T]")) == "a\n"

    def test_crlf_lines(self) -> None:
        """A tag-only line ending in CRLF goes with its CRLF."""
        text = "a\r\n[T]\r\nb"
        assert display_text(text, placed_at(text, "[T]")) == "a\r\nb"


class TestReceiptLength:
    def test_receipt_never_outgrows_the_tag_limit(self) -> None:
        """A receipt echoing hundreds of attributes is cut to fit, keeping result and reason."""
        echo = [(f"flag{i}", None) for i in range(1500)]
        text = render_tag("sheet", [*echo, ("result", "refused"), ("reason", "unsupported")])
        assert len(text) <= 4096
        assert text.endswith('result="refused" reason="unsupported"]')
        assert text.startswith("[sheet: flag0 flag1 ")


class TestCardText:
    """SPEC §7.3: each card on a line of its own, newlines added only where needed."""

    def test_inline_tag_gets_a_line(self) -> None:
        """A tag mid-line becomes a card between two line breaks."""
        text = "a [T] b"
        assert card_text(text, placed_at(text, "[T]")) == "a \ncard\n b"

    def test_tag_on_its_own_line_adds_nothing(self) -> None:
        """A tag already alone on its line keeps the line breaks it has."""
        text = "a\n[T]\nb"
        assert card_text(text, placed_at(text, "[T]")) == "a\ncard\nb"

    def test_tag_at_the_start_and_at_the_end(self) -> None:
        """No line break is added before a card that starts the text, nor after one that ends it."""
        text = "[T] a [U]"
        assert card_text(text, placed_at(text, "[T]", "[U]")) == "card\n a \ncard"

    def test_adjacent_tags_take_one_line_each(self) -> None:
        """Two tags side by side become two card lines, one break between them."""
        text = "a[T][U]b"
        assert card_text(text, placed_at(text, "[T]", "[U]")) == "a\ncard\ncard\nb"
