"""Open WebUI's background tasks told by their prompt text (gmtags/server/tasks.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from gmtags.server.tasks import FUNCTION_CALLING, TITLE, task_of, task_of_text

OPENWEBUI = Path(__file__).resolve().parents[2] / "fixtures" / "clients" / "openwebui"
FIXTURES = sorted(OPENWEBUI.glob("*.json"))


def _fixture(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _prompt(name: str) -> str:
    """The last user message of one of Open WebUI's filled-in task requests."""
    messages = _fixture(OPENWEBUI / f"{name}.json")["body"]["messages"]
    text: str = messages[-1]["content"]
    return text


def _turn(*texts: str) -> list[dict[str, Any]]:
    """A role-play chat: a system prompt, then the texts as user and assistant turns."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the Warden, game master of a heist in Vel."}
    ]
    for i, text in enumerate(texts):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    return messages


PLAYER_MESSAGES = [
    "### Task: find the title deed before the guards tag us.",
    "### Task:\nGenerate a title for my tavern. Tags: cozy, rowdy.",
    "I scrawl on the wall: ### Task: steal the tags from the customs house.",
    'I hand the clerk a forged form. It reads: JSON format: { "title": "Deed of Vel" }',
    "Suggest 3-5 relevant follow-up questions I could ask the fence?",
    "Your task is to reflect the speaker's likely facial expression through a fitting emoji.",
    "Available Tools: a lockpick, a rope and a stolen uniform.",
    "You have been provided with a set of responses from various models to the latest user"
    " query: what now?",
    '### Task: remember this.\n<chat_history>\nJSON format: { "title": "x" }\n</chat_history>',
    "",
    "   ",
]


class TestTaskOfText:
    """task_of_text: one filled-in template's text to its task."""

    @pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
    def test_real_filled_in_templates(self, path: Path) -> None:
        """Each Open WebUI default template, filled in with a chat, is told as its task."""
        data = _fixture(path)
        messages = data["body"]["messages"]
        carrier = messages[0] if data["task"] == FUNCTION_CALLING else messages[-1]
        assert task_of_text(carrier["content"]) == data["task"]

    @pytest.mark.parametrize("text", PLAYER_MESSAGES)
    def test_player_messages_are_not_tasks(self, text: str) -> None:
        """A player's message that mentions tasks, titles, tags or "### Task:" is a turn."""
        assert task_of_text(text) is None

    def test_leading_whitespace(self) -> None:
        """A template after leading blank lines is still told."""
        assert task_of_text("\n\n  " + _prompt("title")) == TITLE

    def test_phrase_after_the_history_does_not_count(self) -> None:
        """Only the template's text before the chat history names the task."""
        text = _prompt("title").replace('JSON format: { "title":', "JSON format: {")
        text += '\nJSON format: { "tags": ["x"] }'
        assert task_of_text(text) is None

    def test_history_quoting_another_template(self) -> None:
        """A tags task whose chat history quotes the title template is still a tags task."""
        title = _prompt("title")
        tags = _fixture(OPENWEBUI / "tags.json")["body"]["messages"][0]["content"]
        quoted = tags.replace("<chat_history>\n", "<chat_history>\nUSER: " + title + "\n", 1)
        assert task_of_text(quoted) == "tags"

    def test_long_player_message_is_cheap(self) -> None:
        """A huge message opening with "### Task:" is read only as far as a template's head."""
        text = "### Task: " + "steal the ledger. " * 200_000
        start = time.perf_counter()
        for _ in range(100):
            assert task_of_text(text) is None
        assert time.perf_counter() - start < 0.5


class TestIsTask:
    """task_of_text as a yes or no."""

    def test_true_for_a_task(self) -> None:
        """A filled-in follow-up template is a task."""
        assert task_of_text(_prompt("follow_ups"))

    def test_false_for_a_turn(self) -> None:
        """A player's move is not."""
        assert not task_of_text("I pick the lock on the side door, as quietly as I can.")


class TestTaskOf:
    """task_of: an OpenAI-style messages list to its task."""

    @pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
    def test_real_requests(self, path: Path) -> None:
        """Each request Open WebUI sends for a task is told as that task."""
        data = _fixture(path)
        assert task_of(data["body"]["messages"]) == data["task"]

    @pytest.mark.parametrize("text", PLAYER_MESSAGES)
    def test_role_play_turns(self, text: str) -> None:
        """A chat whose last user message is a player's move is no task."""
        assert task_of(_turn("I slip along the canal wall.", "Fog rolls in.", text)) is None

    def test_content_parts(self) -> None:
        """A task template in a list of content parts is read from its first text part."""
        parts = [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "text", "text": _prompt("title")},
        ]
        assert task_of([{"role": "user", "content": parts}]) == TITLE

    def test_only_the_last_user_message_counts(self) -> None:
        """A template pasted earlier in the chat does not make the next turn a task."""
        messages = _turn(_prompt("title"), "The clerk frowns.", "I pick the lock.")
        assert task_of(messages) is None

    def test_assistant_messages_do_not_count(self) -> None:
        """A template in an assistant reply after the player's move is not a task."""
        messages = [*_turn("I pick the lock."), {"role": "assistant", "content": _prompt("tags")}]
        assert task_of(messages) is None

    def test_tool_choice_is_read_from_the_system_message(self) -> None:
        """The tool choice's template is the system message; its user message is the query."""
        messages = _fixture(OPENWEBUI / "function_calling.json")["body"]["messages"]
        assert not task_of_text(messages[-1]["content"])
        assert task_of(messages) == FUNCTION_CALLING

    def test_a_game_masters_system_prompt_is_no_tool_choice(self) -> None:
        """A system prompt that merely lists the party's tools is no task."""
        messages = _turn("I pick the lock.")
        messages[0]["content"] = "Available Tools: lockpicks, rope. You are the Warden."
        assert task_of(messages) is None

    def test_empty_and_odd_messages(self) -> None:
        """No messages, no user message, or content that is not text make no task."""
        assert task_of([]) is None
        assert task_of([{"role": "system", "content": "You are the Warden."}]) is None
        assert task_of([{"role": "user", "content": None}]) is None
        assert task_of([{"role": "user", "content": [{"type": "text", "text": 7}]}]) is None
