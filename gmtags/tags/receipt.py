"""Receipts: the tag as the engine rewrites it (SPEC §3).

A receipt is the tag name and an ordered list of attributes; it renders as
`[name: key="value" flag key="value"]` with straight quotes and cleaned values,
so every receipt parses again as the tag it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.tags.card import Pairs, refused_card
from gmtags.text import clean_value

# SPEC §2: attributes only the engine writes. A model that writes them is
# discarded, so it cannot forge a result.
_COMMON = frozenset({"result", "reason", "now", "raw", "recovered"})
ENGINE_ATTRS: dict[str, frozenset[str]] = {
    "clock": _COMMON,
    "sheet": _COMMON,
    "skill_check": _COMMON
    | frozenset(
        {
            "rolls", "used", "modifier", "total", "resolution", "dice", "pool", "auto",
            "rerolled", "penalty", "adjust", "effects", "from", "automatic", "complication",
            "exact", "highest", "zerodice", "darkhighest", "darkoutcome", "symbols",
            "thrown", "symboldetails", "unmodified", "outcome", "successes", "against",
        }
    ),
}  # fmt: skip

_ENGINE_OUTPUTS = frozenset({"result", "reason", "now", "raw", "recovered"})


@dataclass(frozen=True, slots=True)
class Receipt:
    """One applied (or refused) tag.

    `inputs` are the attributes the model wrote (engine-written ones removed);
    `outputs` are every attribute of the rewritten tag, in receipt order;
    `card` is the one-line Markdown card a person reads (SPEC §7.3, `gmtags.tags.card`).
    """

    tag: str
    inputs: Pairs
    outputs: Pairs
    card: str
    limits: Limits = field(default=DEFAULT_LIMITS, repr=False, compare=False)
    """The limits the text is rendered within (value length, tag length)."""
    text: str = field(init=False, repr=False, compare=False)
    """The receipt as tag text, rendered once (the log, the reply and the stream share it)."""

    def __post_init__(self) -> None:
        # A card is one line, whatever the model wrote into a name (U+2028, U+0085, …).
        object.__setattr__(self, "card", " ".join(self.card.splitlines()))
        object.__setattr__(self, "text", render_tag(self.tag, self.outputs, self.limits))

    def within(self, limits: Limits) -> Receipt:
        """This receipt rendered within `limits` (itself when they are the ones it has)."""
        return self if limits == self.limits else replace(self, limits=limits)

    def noting(self, key: str, value: str) -> Receipt:
        """This receipt with one more engine-written attribute at its end (`recovered=`)."""
        return replace(self, outputs=(*self.outputs, (key, value)))

    @property
    def result(self) -> str:
        """The `result=` of the receipt: ok, refused, success, failure, …"""
        return dict(self.outputs).get("result") or ""

    @property
    def reason(self) -> str | None:
        """The refusal reason, when the receipt has one."""
        return dict(self.outputs).get("reason")

    def attr(self, key: str) -> str | None:
        """One output attribute's value (None when absent or a bare flag)."""
        return dict(self.outputs).get(key)

    def render(self) -> str:
        """The receipt as tag text."""
        return self.text

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly view: tag name, input attributes, output attributes."""
        return {"tag": self.tag, "inputs": dict(self.inputs), "outputs": dict(self.outputs)}


def render_tag(
    name: str, attrs: Iterable[tuple[str, str | None]], limits: Limits = DEFAULT_LIMITS
) -> str:
    """`[name: key="value" flag]`, values cleaned so the text always parses as one tag.

    A receipt never outgrows the tag length limit, so it always scans again as
    one tag: when the echoed attributes would make it too long, the last ones
    the model wrote are left out (from the first that does not fit on); what
    the engine wrote (`result`, `reason`, `now`, …, always at the end) is kept.
    """
    parts = [
        key if value is None else f'{key}="{clean_value(value, limits.receipt_value_length)}"'
        for key, value in attrs
    ]
    text = _join(name, parts)
    if len(text) <= limits.tag_length:
        return text
    kept_tail = [part for part in parts if part.split("=", 1)[0] in _ENGINE_OUTPUTS]
    head: list[str] = []
    for part in parts:
        if part in kept_tail:
            continue
        if len(_join(name, [*head, part, *kept_tail])) > limits.tag_length:
            break
        head.append(part)
    return _join(name, [*head, *kept_tail])


def _join(name: str, parts: list[str]) -> str:
    return f"[{name}: {' '.join(parts)}]" if parts else f"[{name}:]"


def refused(tag: str, inputs: Pairs, echo: Pairs, reason: str) -> Receipt:
    """A refused receipt: the echoed attributes, then `result="refused" reason=…`.

    Its card says why in words (SPEC §7.3, `gmtags.tags.card.refused_card`).
    """
    outputs = (*echo, ("result", "refused"), ("reason", reason))
    return Receipt(tag, inputs, outputs, refused_card(tag, inputs, outputs))
