"""Open WebUI's background tasks, told by their prompt text (SPEC §7.2).

Open WebUI asks the chat's own model for a title, tags, follow-up
suggestions, search queries, an autocompletion, an emoji, an image prompt,
a merged answer (MoA), a tool choice and a context summary. Each is an
ordinary `/v1/chat/completions` (or Ollama `/api/chat`) request: the task's
template, filled in with the chat, as the only user message
(`open_webui/routers/tasks.py`; the tool choice puts its template in a
system message, `open_webui/utils/middleware.py`), and the task's name
rides in `metadata`, which Open WebUI drops before the model call
(`open_webui/routers/openai.py`, `payload.pop('metadata')`). Its
`X-OpenWebUI-Chat-Id` header, when sent, names the player's chat, so it
does not tell a task from a turn either. So a task is told by its text: the
template's own opening and a phrase of the template that comes before the
filled-in chat history (`<chat_history>`), so a history that quotes another
template, or a player who writes "### Task:" in role play, is not mistaken
for a task. Templates: `fixtures/clients/README.md` says which Open WebUI
versions and lines they come from. A template the admin rewrote is not
recognised.

Cheap by design (it runs on every request): a prefix test, then at most a
few substring searches in the template's first few thousand characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

TITLE = "title"
TAGS = "tags"
FOLLOW_UPS = "follow_ups"
QUERY = "query"
AUTOCOMPLETE = "autocomplete"
EMOJI = "emoji"
IMAGE_PROMPT = "image_prompt"
MOA = "moa"
FUNCTION_CALLING = "function_calling"
CONTEXT_COMPACTION = "context_compaction"

_TASK_OPENING = "### Task:"
# How far into a prompt the template's own text before the chat history can reach:
# the longest default head (autocomplete, 0.12.4) is under 1,500 characters.
_HEAD_LIMIT = 4096
_HISTORY = "<chat_history>"
_LEADING_SPACE = re.compile(r"\s*")

# The "### Task:" templates (open-webui 0.5 to 0.12): a phrase each, from the template's
# text before `<chat_history>`, shared by every version of that template.
_TASK_PHRASES: tuple[tuple[str, str], ...] = (
    (TITLE, 'JSON format: { "title":'),
    (TAGS, 'JSON format: { "tags":'),
    (FOLLOW_UPS, 'JSON format: { "follow_ups":'),
    (QUERY, "Analyze the chat history to determine the necessity of generating search queries"),
    (AUTOCOMPLETE, "You are an autocompletion system."),
    # "am" is the template's own typo.
    (IMAGE_PROMPT, "Generate a detailed prompt for am image generation task"),
    (CONTEXT_COMPACTION, "Summarize the conversation history that will be compacted"),
)

# Templates without "### Task:": (task, opening, a phrase later in the template).
_OPENINGS: tuple[tuple[str, str, str], ...] = (
    (
        EMOJI,
        "Your task is to reflect the speaker's likely facial expression through a fitting emoji.",
        "Message: ```",
    ),
    (
        MOA,
        "You have been provided with a set of responses from various models"
        " to the latest user query:",
        "Responses from models: ",
    ),
    (
        FUNCTION_CALLING,
        "Available Tools: ",
        "Your task is to choose and return the correct tool(s) from the list of available tools",
    ),
    # The title template before the "### Task:" templates (open-webui 0.4 and 0.5).
    (
        TITLE,
        "Create a concise, 3-5 word title with an emoji as a title for the",
        "RESPOND ONLY WITH THE TITLE TEXT.",
    ),
)


def task_of_text(text: str) -> str | None:
    """The Open WebUI task whose filled-in template `text` is, or None for anything else."""
    leading = _LEADING_SPACE.match(text)
    start = leading.end() if leading else 0
    if text.startswith(_TASK_OPENING, start):
        head_end = text.find(_HISTORY, start, start + _HEAD_LIMIT)
        head = text[start : head_end if head_end >= 0 else start + _HEAD_LIMIT]
        for task, phrase in _TASK_PHRASES:
            if phrase in head:
                return task
        return None
    for task, opening, phrase in _OPENINGS:
        if text.startswith(opening, start):
            return task if phrase in text else None
    return None


def _text(content: Any) -> str:
    """A message's text: the string, or the first text part of a list (as Open WebUI reads it)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                return text if isinstance(text, str) else ""
    return ""


def task_of(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The Open WebUI task an OpenAI-style `messages` list asks for, or None for a chat turn.

    The last user message holds every task's template, except the tool choice,
    whose template is the first (system) message and whose user message is the
    player's query.
    """
    for message in reversed(messages):
        if message.get("role") == "user":
            task = task_of_text(_text(message.get("content")))
            if task is not None:
                return task
            break
    first = messages[0] if messages else None
    if first is not None and first.get("role") == "system":
        return (
            FUNCTION_CALLING
            if task_of_text(_text(first.get("content"))) == FUNCTION_CALLING
            else None
        )
    return None
