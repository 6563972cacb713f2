"""Cards read back as the receipts they show (SPEC §7.3, "placement reads them back").

With `--display cards` the client stores each reply with a one-line card where
each command stood (`gmtags.tags.card`), and sends those cards back in later
requests. The model must see what was rolled in the form its instructions
teach, so before a request goes upstream every assistant message matched to a
node, or to a chain of nodes (`gmtags.history.anchor.matched_chains`), has its
card lines replaced, in order, by the receipts of the commands those nodes
applied (`Node.receipts`, kept whatever the client was shown: SPEC §7.2).

Decision: only when the message holds exactly as many card lines as its nodes
hold receipts; otherwise (a card deleted or added by hand) the message goes as
it is, since which card shows which command can no longer be told. A card on
the first line after a speaker prefix keeps the prefix. A message whose
content is a list of parts has each text part read the same way, the parts'
cards counted together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gmtags.history.anchor import Anchor, Nodes, Said, matched_chains
from gmtags.history.fingerprint import card_lines


def shown_receipts(
    messages: Sequence[Said], anchor: Anchor | None, nodes: Nodes
) -> dict[int, tuple[str, ...]]:
    """For each assistant message placement matched to a node or a chain, by index, the
    receipts its nodes applied, in order (none when no anchor was found)."""
    if anchor is None:
        return {}
    return {
        index: tuple(receipt for node in chain for receipt in node.receipts)
        for index, chain in matched_chains(messages, anchor, nodes)
        if card_lines(messages[index].text)
    }


def with_receipts(
    messages: Sequence[Mapping[str, Any]], shown: Mapping[int, tuple[str, ...]]
) -> list[Mapping[str, Any]]:
    """The messages, each one in `shown` with its card lines replaced by its receipts when the
    counts agree (copied; the others as they are)."""
    out: list[Mapping[str, Any]] = list(messages)
    for index, receipts in shown.items():
        content = messages[index].get("content")
        replaced = _content(content, list(receipts))
        if replaced is not None:
            out[index] = {**messages[index], "content": replaced}
    return out


def _content(content: object, receipts: list[str]) -> object | None:
    """`content` with its cards replaced by `receipts`, or None when the counts differ."""
    if isinstance(content, str):
        cards = card_lines(content)
        return _replace(content, cards, receipts) if len(cards) == len(receipts) else None
    if not isinstance(content, list):
        return None
    texts = [
        part["text"] if _is_text(part) else None for part in content
    ]  # the text parts, in order
    found = [card_lines(text) if text is not None else [] for text in texts]
    if sum(map(len, found)) != len(receipts) or not receipts:
        return None
    parts: list[object] = []
    used = 0
    for part, text, cards in zip(content, texts, found, strict=True):
        if text is None or not cards:
            parts.append(part)
            continue
        mine, used = receipts[used : used + len(cards)], used + len(cards)
        parts.append({**part, "text": _replace(text, cards, mine)})
    return parts


def _is_text(part: object) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def _replace(text: str, cards: list[tuple[int, int]], receipts: Sequence[str]) -> str:
    out: list[str] = []
    pos = 0
    for (start, end), receipt in zip(cards, receipts, strict=True):
        out.append(text[pos:start])
        out.append(receipt)
        pos = end
    out.append(text[pos:])
    return "".join(out)
