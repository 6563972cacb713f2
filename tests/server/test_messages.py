"""gmtags/server/messages.py: where the GM instructions go in a request."""

from __future__ import annotations

from gmtags.prompt import Instructions
from gmtags.server.messages import with_instructions

GM = Instructions(system="SYSTEM PART", reminder="REMINDER")


class TestWithInstructions:
    def test_system_first_reminder_last(self) -> None:
        """The system part comes before everything and the reminder after the last message."""
        messages = [{"role": "system", "content": "card"}, {"role": "user", "content": "hi"}]
        out = with_instructions(messages, GM)
        assert [m["content"] for m in out] == ["SYSTEM PART", "card", "hi", "REMINDER"]

    def test_prefill_stays_last(self) -> None:
        """A trailing assistant message (a continue) stays last, after the reminder."""
        messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "The"}]
        out = with_instructions(messages, GM)
        assert [m["content"] for m in out] == ["SYSTEM PART", "hi", "REMINDER", "The"]

    def test_messages_are_not_changed(self) -> None:
        """The request's own list and messages are copied, not edited."""
        messages = [{"role": "user", "content": "hi"}]
        with_instructions(messages, GM)[1]["content"] = "changed"
        assert messages == [{"role": "user", "content": "hi"}]
