"""gmtags/server/messages.py: where the GM instructions go in a request (SPEC §7.1)."""

from __future__ import annotations

from typing import Any

from gmtags.prompt import Instructions
from gmtags.server.messages import with_instructions

GM = Instructions(system="SYSTEM PART", reminder="REMINDER")


def shape(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Each message as (role, content)."""
    return [(m["role"], m["content"]) for m in messages]


class TestWithInstructions:
    def test_system_part_joins_the_first_system_message(self) -> None:
        """The system part goes first in the client's own leading system message."""
        messages = [{"role": "system", "content": "card"}, {"role": "user", "content": "hi"}]
        out = with_instructions(messages, GM)
        assert shape(out) == [("system", "SYSTEM PART\n\ncard"), ("user", "hi\n\nREMINDER")]

    def test_system_message_added_when_the_first_is_not_one(self) -> None:
        """A request that does not start with a system message gets one first."""
        messages = [{"role": "user", "content": "hi"}]
        out = with_instructions(messages, GM)
        assert shape(out) == [("system", "SYSTEM PART"), ("user", "hi\n\nREMINDER")]

    def test_reminder_is_a_system_message_when_the_client_sends_them_mid_chat(self) -> None:
        """With a system message after the conversation began, the reminder follows the last
        user message as system text: opening the system message there, or one of its own."""
        messages = [
            {"role": "system", "content": "card"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "post-history"},
        ]
        out = with_instructions(messages, GM)
        assert shape(out) == [
            ("system", "SYSTEM PART\n\ncard"),
            ("assistant", "Hello."),
            ("user", "hi"),
            ("system", "REMINDER\n\npost-history"),
        ]
        continued = [*messages[:3], {"role": "assistant", "content": "The"}, messages[3]]
        out = with_instructions(continued, GM)
        assert shape(out)[3:] == [
            ("system", "REMINDER"),
            ("assistant", "The"),
            ("system", "post-history"),
        ]

    def test_merge_instructions_always_appends(self) -> None:
        """`merge=True` appends the reminder to the last user message even then."""
        messages = [
            {"role": "system", "content": "card"},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "post-history"},
        ]
        out = with_instructions(messages, GM, merge=True)
        assert shape(out)[1] == ("user", "hi\n\nREMINDER")
        assert len(out) == 3

    def test_prefill_stays_last(self) -> None:
        """A trailing assistant message (a continue with prefill) stays last."""
        messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "The"}]
        out = with_instructions(messages, GM)
        assert shape(out) == [
            ("system", "SYSTEM PART"),
            ("user", "hi\n\nREMINDER"),
            ("assistant", "The"),
        ]

    def test_strict_alternation_is_kept(self) -> None:
        """A strict request (one leading system message, then user/assistant turns) keeps its
        roles exactly: nothing is added mid-chat."""
        messages = [
            {"role": "system", "content": "card"},
            {"role": "user", "content": "Let's get started."},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "hi"},
        ]
        out = with_instructions(messages, GM)
        assert [m["role"] for m in out] == [m["role"] for m in messages]

    def test_content_parts_get_a_text_part(self) -> None:
        """A user message whose content is a list of parts gets the reminder as a text part."""
        image = {"type": "image_url", "image_url": {"url": "data:,"}}
        messages = [{"role": "user", "content": [{"type": "text", "text": "look"}, image]}]
        out = with_instructions(messages, GM)
        assert out[1]["content"][-1] == {"type": "text", "text": "REMINDER"}
        assert out[1]["content"][:2] == messages[0]["content"]

    def test_no_user_message_puts_the_reminder_after_the_system_part(self) -> None:
        """With no user message to join, the reminder follows the system part."""
        messages = [{"role": "system", "content": "card"}, {"role": "assistant", "content": "Hi"}]
        out = with_instructions(messages, GM)
        assert shape(out) == [("system", "SYSTEM PART\n\nREMINDER\n\ncard"), ("assistant", "Hi")]

    def test_messages_are_not_changed(self) -> None:
        """The request's own list and messages are copied, not edited."""
        messages = [{"role": "user", "content": "hi"}]
        with_instructions(messages, GM)[1]["content"] = "changed"
        assert messages == [{"role": "user", "content": "hi"}]
