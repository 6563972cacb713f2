"""The Text Completion run of `st_check.py` (`--api text`): SillyTavern's Text Completion
through the gmtags extension in a real SillyTavern.

The player connects SillyTavern to their backend (the scripted model) in its own panel,
then presses the extension's Connect, which points the selected source's server URL at
gmtags; SillyTavern's server then posts each prompt to `/c/<chatId>/<the source's route>`.
Kept apart from the Chat Completion run it extends (`st_check.Check`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from st_check import Check, Failed, _chain, _quoted, _receipts, check
from st_driver import (
    TEXT_URL_INPUTS,
    SillyTavern,
    chat_texts,
    context,
    create_character,
    extensions_drawer,
    idle,
    open_sillytavern,
    send,
    swipe_right,
    use_instruct,
    use_text_completion,
)
from st_tap import Tap

from gmtags.server.demo_shapes import prompt_text
from gmtags.server.demo_upstream import ScriptedUpstream

SYSTEM_PROMPT = (
    "You are the Warden, the game master of a gritty fantasy game. Narrate the world and play"
    " everyone but {{user}}.\nGM-RULES-BEGIN\n{{gmtags}}\nGM-RULES-END"
)
"""The Text Completion run's System Prompt: `{{gmtags}}` where the GM instructions belong."""
INSTRUCTIONS = re.compile(r"GM-RULES-BEGIN\n(.*?)\nGM-RULES-END", re.DOTALL)
TEXT_SOURCES = (
    ("llamacpp", "llama.cpp", "", "/completion"),
    ("koboldcpp", "KoboldCpp", "/v1", "/v1/completions"),
    ("ollama", "Ollama", "", "/api/generate"),
)
"""Text Completion sources played: SillyTavern's name, the name the extension's Connect
says, what the player typed after their backend's URL before pressing it, and the route
SillyTavern's server appends (`text-completions.js:244-275`)."""
GENERATION_ROUTES = tuple(route for *_, route in TEXT_SOURCES)


class TextCheck(Check):
    """The Text Completion run: SillyTavern's server posts the prompt, `/c/{chat}` names it."""

    SHOTS = (
        "sillytavern-text-desktop.png",
        "sillytavern-text-phone-panel.png",
        "sillytavern-text-phone.png",
    )

    def __init__(
        self, st: SillyTavern, gmtags_url: str, upstream: ScriptedUpstream, tap: Tap, backend: str
    ) -> None:
        super().__init__(st, gmtags_url, upstream, None)
        self.tap = tap
        self.backend = backend
        """The player's own backend (the scripted model), before Connect points at gmtags."""
        self.source = TEXT_SOURCES[0]
        self.generations: list[str] = []
        """The path of every generation request gmtags got, in order."""
        self.helpers: list[tuple[str, str]] = []
        """Every other request SillyTavern's server sent gmtags (status checks, token counts)."""
        self._tapped = 0
        self._asked = 0

    def set_up(self) -> None:
        page = self.p
        open_sillytavern(page, self.st.url)
        create_character(
            page, "Warden", "The rain has not stopped for three days. The gate is shut."
        )
        self.open_settings()  # the extension knows gmtags' URL
        page.fill("#gmtags-url", self.gmtags)
        page.locator("#gmtags-url").dispatch_event("change")
        extensions_drawer(page, opened=False)
        self.use_source(TEXT_SOURCES[0])
        use_instruct(page, "ChatML", SYSTEM_PROMPT)
        page.click("#gmtags-panel-button")
        page.locator("#gmtags-panel").wait_for()

    def use_source(self, source: tuple[str, str, str, str]) -> None:
        """The player plays `source` against their backend, then presses the extension's
        Connect: the source's server URL becomes gmtags', and the note names the backend."""
        name, label, typed, _ = source
        backend = self.backend + typed
        use_text_completion(self.p, name, backend)
        self.connect_text(name, label, backend)
        self.source = source

    def connect_text(self, name: str, label: str, backend: str) -> None:
        page = self.p
        field = TEXT_URL_INPUTS[name]
        tapped = len(self.tap.seen)
        self.open_settings()
        page.click("#gmtags-connect")
        want = (
            f"Text Completion ({label}) now goes through gmtags;"
            f" start gmtags serve with --upstream {backend}"
        )
        note = page.locator("#gmtags-connect-note")
        try:
            page.wait_for_function(
                "(want) => document.querySelector('#gmtags-connect-note')?.textContent === want",
                arg=want,
                timeout=5_000,
            )
        except Exception as error:  # playwright's timeout
            raise Failed(f"Connect says {note.text_content()!r}, not {want!r}") from error
        url = page.evaluate("(field) => $(field).val()", field)
        check(
            str(url).rstrip("/") == self.gmtags,
            f"Connect set {field} to {url!r}, not {self.gmtags}",
        )
        # SillyTavern's Connect ran: its status check reached gmtags (through the tap).
        deadline = time.monotonic() + 15.0
        while not [
            s for s in self.tap.seen[tapped:] if s.method == "GET" and s.agent.startswith("node-")
        ]:
            check(time.monotonic() < deadline, "Connect did not reconnect SillyTavern to gmtags")
            time.sleep(0.2)
        page.wait_for_function(
            "([name]) => SillyTavern.getContext().mainApi === 'textgenerationwebui'"
            " && $('#textgen_type').val() === name"
            " && SillyTavern.getContext().onlineStatus !== 'no_connection'",
            arg=[name],
            timeout=30_000,
        )
        page.wait_for_function(
            "() => /connected/i.test(document.querySelector('#gmtags-status')?.textContent ?? '')",
            timeout=15_000,
        )
        page.wait_for_timeout(600)  # the URL field's server-history menu opens 300 ms after input
        check(
            not page.evaluate("() => $('.ui-autocomplete:visible').length"),
            "Connect left SillyTavern's server-history menu open",
        )
        extensions_drawer(page, opened=False)
        print(f"  ok: Connect: {note.text_content()}", flush=True)

    # -- the checks ----------------------------------------------------------------
    def all_right(self, step: str, generations: int = 1) -> None:
        idle(self.p)
        self.routes_right(step, generations)
        self.prompts_right(step, generations)
        super().all_right(step)

    def routes_right(self, step: str, generations: int) -> None:
        """Each generation SillyTavern's server sent gmtags is `/c/<chatId>` and the source's
        route, one per generation; its other calls (status, token counts) are listed."""
        chat_id = self.chat_id()
        new = [s for s in self.tap.seen[self._tapped :] if s.agent.startswith("node-fetch")]
        self._tapped = len(self.tap.seen)  # the page's own calls (panel, checks) are not ST's
        posts = [s.path for s in new if s.method == "POST" and s.path.endswith(GENERATION_ROUTES)]
        self.helpers += [(s.method, s.path) for s in new if s.path not in posts]
        check(
            len(posts) == generations,
            f"after {step}: gmtags got {len(posts)} generation requests, not {generations}: {new}",
        )
        want = f"/c/{_quoted(chat_id)}{self.source[3]}"
        for path in posts:
            check(path == want, f"after {step}: gmtags got POST {path}, not POST {want}")
        self.generations += posts

    def prompts_right(self, step: str, generations: int) -> None:
        """The upstream's prompt holds the GM instructions where `{{gmtags}}` stood."""
        bodies = self.upstream.requests[self._asked :]
        self._asked = len(self.upstream.requests)
        check(len(bodies) == generations, f"after {step}: the upstream got {len(bodies)} requests")
        for body in bodies:
            prompt = prompt_text(body.get("prompt"))
            check("{{gmtags" not in prompt, f"after {step}: the prompt still holds {{{{gmtags}}}}")
            found = INSTRUCTIONS.findall(prompt)
            check(len(found) == 1, f"after {step}: the System Prompt is not in the prompt once")
            rules = found[0]
            check(
                "[skill_check:" in rules and "Ilse" in rules,
                f"after {step}: no GM instructions where {{{{gmtags}}}} stood: {rules[:200]!r}",
            )
            check(
                'skill="<' not in INSTRUCTIONS.sub("", prompt),
                f"after {step}: GM instructions outside the System Prompt",
            )

    def nodes(self) -> list[dict[str, Any]]:
        return list(self.api(f"/gmtags/api/chats/{self.chat_id()}")["nodes"])

    # -- the play ------------------------------------------------------------------
    def play(self, shots: Path) -> None:
        page = self.p
        for number, text in enumerate(("I study the gate.", "I duck.", "I listen."), 1):
            send(page, text)
            self.all_right(f"turn {number} ({self.source[0]})")
        replaced = chat_texts(page)[-1]["mes"]
        swipe_right(page)
        self.all_right("a swipe")
        nodes = self.nodes()
        swipe = nodes[-1]
        old = [n for n in nodes[:-1] if _chain(n, nodes) == _receipts(replaced)]
        check(bool(old), "the swiped-away reply is no gmtags node")
        check(
            swipe["kind"] == "reply" and swipe["parent"] == old[-1]["parent"],
            f"the swipe is node {swipe} , not a sibling of {old[-1]}",
        )
        check(
            context(page, "ctx.chat[ctx.chat.length - 1].swipes?.length") == 2,
            "the swiped message does not hold two swipes",
        )
        print(f"  ok: the swipe is node {swipe['id']}, a sibling of node {old[-1]['id']}")
        send(page, "/continue")
        self.all_right("a continue")
        continued = self.nodes()[-1]
        check(
            continued["kind"] == "continuation" and continued["parent"] == swipe["id"],
            f"the continue is node {continued}, not a continuation of node {swipe['id']}",
        )
        print(f"  ok: the continue is node {continued['id']}, continuing node {swipe['id']}")
        for number, (source, text) in enumerate(
            zip(TEXT_SOURCES[1:], ("I search the room.", "I rest a moment."), strict=True), 4
        ):
            self.use_source(source)
            send(page, text)
            self.all_right(f"turn {number} ({source[0]})")
        chat_id = self.chat_id()
        chats = [c["chat"] for c in self.api("/gmtags/api/chats")]
        check(chats == [chat_id], f"gmtags holds the chats {chats}, not only {chat_id}")
        self._panel_shows("Ilse", "the last turn")
        self.screenshots(shots)
        print(
            f"  ok: gmtags chat {chat_id} = chat_metadata.gmtags.chatId; SillyTavern's server sent:"
        )
        for path in dict.fromkeys(self.generations):
            print(f"      POST {path} ×{self.generations.count(path)}")
        for method, path in dict.fromkeys(self.helpers):
            count = self.helpers.count((method, path))
            print(f"      {method} {path} ×{count} (not a generation: no chat)")
