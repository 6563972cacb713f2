"""Adding the GM instructions to a request's messages (SPEC §7.1, "Where the instructions go").

- The stable system part joins the request's first message when that is a
  system message (it goes first, a blank line before the front end's own
  text); otherwise a system message holding it is added first.
- The per-turn reminder (commands, sheet blocks, clocks of the current
  snapshot) goes as close to where the model writes as the request allows:
  as a system message right after the last user message when the request
  already has a system message after its first non-system one (the client
  accepts system messages mid-chat; when a system message already follows
  the last user message, the reminder opens it, so no two system messages
  stand in a row), else appended to the last user
  message's text, so a client whose prompt post-processing forbids system
  messages mid-chat ("strict") keeps its alternation. `merge=True`
  (`--merge-instructions`) always appends it.
- Decision: a request with no user message at all gets the reminder after
  the system part, in the first message.

The request's messages are copied, never changed in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gmtags.history.anchor import SYSTEM_ROLES
from gmtags.prompt import Instructions

_JOIN = "\n\n"


def _appended(content: Any, text: str, *, first: bool = False) -> Any:
    """`content` (a string or a list of parts) with `text` joined after it (or before it)."""
    if isinstance(content, list):
        part = {"type": "text", "text": text}
        return [part, *content] if first else [*content, part]
    base = content if isinstance(content, str) else ""
    if not base:
        return text
    return text + _JOIN + base if first else base + _JOIN + text


def _system_mid_chat(messages: Sequence[Mapping[str, Any]]) -> bool:
    """True when a system message follows the first non-system message."""
    seen_other = False
    for message in messages:
        if message.get("role") in SYSTEM_ROLES:
            if seen_other:
                return True
        else:
            seen_other = True
    return False


def with_instructions(
    messages: Sequence[Mapping[str, Any]], instructions: Instructions, *, merge: bool = False
) -> list[dict[str, Any]]:
    """The messages with the GM system part first and the turn reminder placed (see above)."""
    copied = [dict(message) for message in messages]
    users = [index for index, message in enumerate(copied) if message.get("role") == "user"]
    as_message = not merge and _system_mid_chat(copied) and bool(users)
    if users and not as_message:
        last = copied[users[-1]]
        last["content"] = _appended(last.get("content"), instructions.reminder)
    elif as_message:
        after = users[-1] + 1
        if after < len(copied) and copied[after].get("role") in SYSTEM_ROLES:
            following = copied[after]
            following["content"] = _appended(
                following.get("content"), instructions.reminder, first=True
            )
        else:
            copied.insert(after, {"role": "system", "content": instructions.reminder})
    system = instructions.system if users else instructions.system + _JOIN + instructions.reminder
    if copied and copied[0].get("role") in SYSTEM_ROLES:
        copied[0]["content"] = _appended(copied[0].get("content"), system, first=True)
    else:
        copied.insert(0, {"role": "system", "content": system})
    return copied
