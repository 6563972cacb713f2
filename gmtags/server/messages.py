"""Adding the GM instructions to a request's messages (issue 7, items 1 and 2).

The stable system part goes first, as its own `system` message, ahead of the
front end's own system prompt; the per-turn reminder (commands, sheet blocks,
clocks of the current snapshot) goes last, right where the model starts
writing, so it weighs most. When the messages end with an assistant message
(a "continue" prefill) the reminder goes before it, so the prefill stays last.
The request's messages are copied, never changed in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gmtags.prompt import Instructions


def with_instructions(
    messages: Sequence[Mapping[str, Any]], instructions: Instructions
) -> list[dict[str, Any]]:
    """The messages with the GM system part first and the turn reminder last."""
    copied = [dict(message) for message in messages]
    at = len(copied)
    while at > 0 and copied[at - 1].get("role") == "assistant":
        at -= 1
    reminder = {"role": "system", "content": instructions.reminder}
    return [
        {"role": "system", "content": instructions.system},
        *copied[:at],
        reminder,
        *copied[at:],
    ]
