"""Play gmtags inside a real SillyTavern with the gmtags extension, and check what the player sees.

    make st-check ST_DIR=/path/to/SillyTavern      (a checkout with `npm install` done)

It starts, each on a free loopback port and each with data of its own:
- a scripted model (`ScriptedUpstream`) that writes checks, clocks and sheet
  commands, one reply per player turn;
- `gmtags serve` with the 5e builder example plus clocks, a start state holding
  Ilse (built from the bundled answers), `--allow-origin` for SillyTavern;
- SillyTavern itself (`node server.js --dataRoot <temp>`), with the extension
  copied in by `gmtags sillytavern install`.

Then, in headless Chromium, a player sets the extension up (URL, Connect),
creates a game master character and plays: at least 10 turns of one chat with
a swipe, an edit, a delete, a continue, a branch, a rename and a reload, the
builder, and a second chat of the same character. After every step it checks:
- every receipt of every message is a card with `data-gmtags-command`,
  `-result` and `-outcome`, and no receipt text is left on screen;
- the stored chat file holds the model's receipts as gmtags sent them, and the
  extension added nothing to it but `chat_metadata.gmtags.chatId`;
- the request reached gmtags named by that id (the chat gmtags stored);
- the Game panel shows, within 2 s, the state of the message looked at.
It writes screenshots (1280×800 and 390×844) to `--shots` (default docs/) and
exits non-zero on the first failure, saying what was wrong.

That is the Chat Completion run (`--api chat`, the default): the extension's
Connect first pressed with SillyTavern's default main API (KoboldAI Horde) must
change nothing and say so; then the player chooses Chat Completion and Connect
sets source Custom. `--api text` plays SillyTavern's Text Completion instead:
the player connects SillyTavern to their backend (the scripted model) through its
own controls (API, source, server URL, Connect; instruct mode with the ChatML
templates and `{{gmtags}}` in the System Prompt), then presses the extension's
Connect, which sets that source's server URL to gmtags, reconnects, and names
the backend's URL for `gmtags serve --upstream`. SillyTavern's server, not the
browser, then posts the prompt to gmtags, and the extension names the chat by
putting `/c/{chat}` on the request's `api_server`. A tap in front of gmtags
(`st_tap.py`) writes down every path SillyTavern's server called. Three turns on
llama.cpp (`/completion`), a swipe and a continue, then a turn on KoboldCpp
(`/v1/completions`, its backend's URL typed with `/v1`) and one on Ollama
(`/api/generate`), in one chat, each source set by Connect; after every step,
besides the checks above:
- every generation request SillyTavern's server sent gmtags was
  `/c/<chat_metadata.gmtags.chatId>/` and the source's own route, one per
  generation (its status checks and token counts carry no chat and are listed);
- the prompt the upstream got holds the GM instructions where `{{gmtags}}` stood,
  and no `{{gmtags}}` is left in it;
and the swipe is a sibling node of the reply it replaces, the continue a
continuation of the swipe, and gmtags holds one chat, the extension's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))  # st_driver
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' Chromium set-up

from st_driver import (
    SillyTavern,
    chat_texts,
    choose_main_api,
    context,
    create_character,
    edit_last,
    extensions_drawer,
    free_port,
    idle,
    open_sillytavern,
    select_character,
    send,
    swipe_right,
    wait_http,
)
from st_tap import Tap

from gmtags.server.background import BackgroundServer
from gmtags.server.demo_upstream import ScriptedUpstream
from tests.browser.conftest import CHROMIUM, FLAGS

ROOT = Path(__file__).resolve().parent.parent
GMTAGS = Path(sys.executable).parent / "gmtags"
RECEIPT = re.compile(r"\[(skill_check|clock|sheet):[^\[\]]*?\bresult=\"[^\"]*\"[^\[\]]*\]")
PANEL_SECONDS = 2.0

TURNS = (
    'Ilse reads the runes on the gate. [skill_check: skill="Arcana" dc="12" who="Ilse"]\n'
    'Far off, a horn answers. [clock: name="Alarm" size="6"]',
    'A crossbow bolt grazes her arm. [sheet: who="Ilse" op="damage" pool="hp" amount="3"]'
    '\nThe horn sounds again. [clock: name="Alarm" tick="1"]',
    'She listens at the door. [skill_check: skill="Perception" dc="10" who="Ilse"]'
    ' The air smells of rot. [sheet: who="Ilse" op="condition" condition="Poisoned"]',
    'She searches the guard room. [skill_check: skill="Investigation" dc="13" who="Ilse"]'
    '\nBoots on the stair. [clock: name="Alarm" tick="2"]',
    'She catches her breath. [sheet: who="Ilse" op="spend" pool="hit_dice" amount="1"]'
    ' [sheet: who="Ilse" op="heal" pool="hp" amount="2"]',
    'No reinforcements come yet. [clock: name="Reinforcements" tick="1"]\n'
    'She slips along the wall. [skill_check: skill="Stealth" dc="12" who="Ilse"]',
    'Toma, new to the watch, hauls the bar. [skill_check: skill="Athletics" dc="10"'
    ' who="Toma"]\n[clock: name="Alarm" tick="1"]',
    'The poison ebbs. [sheet: who="Ilse" op="condition" condition="Poisoned" state="off"]'
    ' She recalls the old tales. [skill_check: skill="History" dc="11" who="Ilse"]',
    'A rock falls. [sheet: who="Ilse" op="damage" pool="hp" amount="1"]'
    ' [clock: name="Alarm" tick="1"]',
    'Ilse reads the watchers\' faces. [skill_check: skill="Insight" dc="12" who="Ilse"]',
    'The gate gives at last. [clock: name="Gate" size="4"] [clock: name="Gate" tick="4"]',
    'Dawn. [sheet: who="Ilse" op="heal" pool="hp" amount="3"]'
    ' [skill_check: skill="Perception" dc="8" who="Ilse"]',
    'They walk on. [clock: name="Alarm" clear]',
)
"""The scripted model's reply to the n-th player turn of a chat."""


class Failed(Exception):
    """What the player would have seen wrong."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def reply_for(messages: Sequence[Any]) -> str:
    users = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "user")
    return TURNS[max(users - 1, 0) % len(TURNS)]


CONTINUATION = ' Somewhere below, a door slams. [clock: name="Alarm" tick="1"]'
"""The scripted model's text when asked to continue a reply (Text Completion)."""


def reply_for_prompt(prompt: str) -> str:
    """The scripted model's reply to a ChatML prompt: as `reply_for`, by its player turns;
    `CONTINUATION` when the prompt ends in a reply already written (SillyTavern's continue)."""
    if RECEIPT.search(prompt.rsplit("<|im_start|>assistant", 1)[-1]):
        return CONTINUATION
    users = prompt.count("<|im_start|>user")
    return TURNS[max(users - 1, 0) % len(TURNS)]


class Check:
    """One st-check run: the servers, the browser page, and the checks after each step."""

    def __init__(
        self, st: SillyTavern, gmtags_url: str, upstream: ScriptedUpstream, token: str | None
    ) -> None:
        self.st = st
        self.token = token
        self.gmtags = gmtags_url
        self.upstream = upstream
        self.page: Page | None = None
        self.steps: list[str] = []

    # -- what gmtags holds -------------------------------------------------------------
    def api(self, path: str) -> Any:
        headers = {} if self.token is None else {"X-Gmtags-Token": self.token}
        answer = httpx.get(self.gmtags + path, headers=headers, timeout=10.0)
        answer.raise_for_status()
        return answer.json()

    def chat_id(self) -> str:
        chat_id = context(self.p, "ctx.chatMetadata?.gmtags?.chatId ?? null")
        check(isinstance(chat_id, str) and bool(chat_id), "the chat has no gmtags chatId")
        return str(chat_id)

    @property
    def p(self) -> Page:
        assert self.page is not None
        return self.page

    # -- the checks ----------------------------------------------------------------
    def cards_right(self, step: str) -> None:
        """Every receipt of every shown message is a card; no receipt text is on screen."""
        deadline = time.monotonic() + 3.0
        while True:
            problem = self._card_problem()
            if problem is None:
                return
            if time.monotonic() > deadline:
                raise Failed(f"after {step}: {problem}")
            time.sleep(0.2)

    def _card_problem(self) -> str | None:
        for message in chat_texts(self.p):
            receipts = RECEIPT.findall(message["mes"])
            index = message["i"]
            shown = self.p.evaluate(
                """(i) => {
                    const mes = document.querySelector(`#chat .mes[mesid="${i}"] .mes_text`);
                    if (!mes) return null;
                    const cards = [...mes.querySelectorAll('.gmtags-card')].map(c => ({
                        command: c.dataset.gmtagsCommand, result: c.dataset.gmtagsResult,
                        outcome: c.dataset.gmtagsOutcome, label: c.getAttribute('aria-label')}));
                    const clone = mes.cloneNode(true);
                    clone.querySelectorAll('.gmtags-card').forEach(c => c.remove());
                    return {cards, text: clone.textContent};
                }""",
                index,
            )
            if shown is None:
                continue
            if len(shown["cards"]) != len(receipts):
                return (
                    f"message {index} holds {len(receipts)} receipts but shows"
                    f" {len(shown['cards'])} cards"
                )
            for card, command in zip(shown["cards"], receipts, strict=True):
                if card["command"] != command or not card["result"] or not card["outcome"]:
                    return f"message {index}: a card's data attributes are wrong: {card}"
                if not card["label"]:
                    return f"message {index}: a card has no label for a screen reader"
            if 'result="' in shown["text"]:
                return f"message {index} still shows receipt text: {shown['text'][:200]!r}"
        return None

    def stored_right(self, step: str) -> None:
        """The stored chat file: the receipts as gmtags sent them, and only our metadata id."""
        name = context(self.p, "ctx.getCurrentChatId()")
        character = context(self.p, "ctx.name2")
        path = self.st.user_dir / "chats" / character / f"{name}.jsonl"
        deadline = time.monotonic() + 5.0
        while True:
            lines = [json.loads(line) for line in path.read_text().splitlines() if line]
            shown = [m["mes"] for m in chat_texts(self.p)]
            if [line.get("mes") for line in lines[1:]] == shown:
                break
            if time.monotonic() > deadline:
                raise Failed(f"after {step}: the chat file does not hold what is on screen")
            time.sleep(0.3)
        metadata = lines[0].get("chat_metadata", {})
        ours = metadata.get("gmtags")
        check(
            isinstance(ours, dict) and set(ours) == {"chatId"},
            f"after {step}: chat_metadata.gmtags is {ours!r}, not only the chatId",
        )
        for line in lines[1:]:
            check("gmtags-card" not in line.get("mes", ""), f"after {step}: a card was stored")
        nodes = self.api(f"/gmtags/api/chats/{ours['chatId']}")["nodes"]
        known = {tuple(_collapse(r) for r in node["receipts"]) for node in nodes}
        for line in lines[1:]:
            receipts = tuple(_collapse(r.group(0)) for r in RECEIPT.finditer(line.get("mes", "")))
            if receipts and not line.get("is_user"):
                check(
                    any(_ends(receipts, k) for k in known),
                    f"after {step}: a stored reply's receipts are not gmtags' ({receipts[:1]})",
                )

    def panel_right(self, step: str) -> None:
        """The Game panel shows, within 2 s, the state after the message looked at."""
        chat_id = self.chat_id()
        nodes = self.api(f"/gmtags/api/chats/{chat_id}")["nodes"]
        last = [m for m in chat_texts(self.p) if not m["is_user"] and RECEIPT.search(m["mes"])]
        if not last:
            return
        receipts = tuple(_collapse(r.group(0)) for r in RECEIPT.finditer(last[-1]["mes"]))
        matching = [n for n in nodes if _chain(n, nodes) == receipts]
        check(bool(matching), f"after {step}: no gmtags node holds the last reply's receipts")
        node = matching[-1]
        deadline = time.monotonic() + PANEL_SECONDS
        while True:
            src = self.p.evaluate(
                "() => document.querySelector('#gmtags-panel iframe')?.getAttribute('src') ?? ''"
            )
            pinned = re.search(r"[?&]node=(\d+)", src)
            here = str(chat_id) in src or _quoted(chat_id) in src
            if here and (
                (pinned and pinned.group(1) == str(node["id"])) or (not pinned and node["current"])
            ):
                return
            if time.monotonic() > deadline:
                raise Failed(
                    f"after {step}: the Game panel shows {src!r}, not node {node['id']}"
                    f" of chat {chat_id}"
                )
            time.sleep(0.1)

    def all_right(self, step: str) -> None:
        idle(self.p)
        self.cards_right(step)
        self.stored_right(step)
        self.panel_right(step)
        self.steps.append(step)
        print(f"  ok: {step}", flush=True)

    # -- the play ------------------------------------------------------------------
    def set_up(self) -> None:
        page = self.p
        open_sillytavern(page, self.st.url)
        create_character(
            page, "Warden", "The rain has not stopped for three days. The gate is shut."
        )
        self.status_lights()
        self.connect_refused()
        choose_main_api(page, "openai")  # Chat Completion, in SillyTavern's API menu
        self.connect(url=self.gmtags, token=self.token)
        # Streaming on, as SillyTavern's "Streaming" box in its response settings does.
        page.evaluate("() => $('#stream_toggle').prop('checked', true).trigger('change')")
        page.click("#gmtags-panel-button")
        page.locator("#gmtags-panel").wait_for()

    def status_lights(self) -> None:
        """The settings' status light: gmtags not reachable, then (with a token) a wrong one."""
        page = self.p
        self.open_settings()
        trials = [(f"http://127.0.0.1:{free_port()}", None, "unreachable")]
        if self.token is not None:
            trials.append((self.gmtags, "not-" + self.token, "wrong-token"))
        for url, token, state in trials:
            page.fill("#gmtags-url", url)
            page.locator("#gmtags-url").dispatch_event("change")
            if token is not None:
                page.fill("#gmtags-token", token)
                page.locator("#gmtags-token").dispatch_event("change")
            try:
                page.wait_for_function(
                    "(state) => document.querySelector('#gmtags-status')?.dataset.state === state",
                    arg=state,
                    timeout=10_000,
                )
            except Exception as error:  # playwright's timeout
                shown = page.locator("#gmtags-status").text_content()
                raise Failed(f"the status light says {shown!r}, not {state}") from error
            print(f"  ok: the status light says {state}", flush=True)

    def open_settings(self) -> None:
        """SillyTavern's Extensions panel open, with the gmtags block unfolded."""
        page = self.p
        settings = page.locator("#gmtags-settings")
        extensions_drawer(page, opened=True)
        settings.wait_for()
        if not page.locator("#gmtags-url").is_visible():
            settings.locator(".inline-drawer-toggle").click()
            page.locator("#gmtags-url").wait_for()

    def settings_shot(self, shots: Path) -> None:
        """A picture of the extension's settings block (URL, token, buttons, status)."""
        self.open_settings()
        shots.mkdir(parents=True, exist_ok=True)
        self.p.locator("#gmtags-settings").screenshot(path=str(shots / "sillytavern-settings.png"))
        extensions_drawer(self.p, opened=False)

    def sign_in_panel(self) -> None:
        """With --token the panel's frame asks for the token once, as the pages do."""
        frame = self.p.frame_locator("#gmtags-panel iframe")
        field = frame.locator("input#token")
        field.wait_for(timeout=10_000)
        field.fill(str(self.token))
        frame.get_by_role("button", name="Open").click()
        frame.locator("main").first.wait_for()
        check(not frame.locator("input#token").count(), "the token did not open the panel")
        print("  ok: the panel asked for the token once", flush=True)

    def connect_refused(self) -> None:
        """With a main API other than Chat or Text Completion (SillyTavern's default, KoboldAI
        Horde), the extension's Connect says what it supports and changes nothing."""
        page = self.p
        api = context(page, "ctx.mainApi")
        check(api not in ("openai", "textgenerationwebui"), f"the main API is {api} already")
        custom = page.evaluate("() => $('#custom_api_url_text').val()")
        self.open_settings()
        page.click("#gmtags-connect")
        note = page.locator("#gmtags-connect-note")
        try:
            page.wait_for_function(
                "() => /^Connect supports Chat Completion and Text Completion only/"
                ".test(document.querySelector('#gmtags-connect-note')?.textContent ?? '')",
                timeout=5_000,
            )
        except Exception as error:  # playwright's timeout
            raise Failed(f"Connect with {api} says {note.text_content()!r}") from error
        page.wait_for_timeout(500)
        check(context(page, "ctx.mainApi") == api, f"Connect changed the main API from {api}")
        check(
            page.evaluate("() => $('#custom_api_url_text').val()") == custom,
            "Connect changed Chat Completion's Custom URL while the main API was another",
        )
        print(f"  ok: Connect with the main API {api} changed nothing: {note.text_content()}")

    def connect(self, url: str | None = None, token: str | None = None) -> None:
        """Open the extension's settings (set its URL) and press Connect."""
        page = self.p
        self.open_settings()
        if url is not None:
            page.fill("#gmtags-url", url)
            page.locator("#gmtags-url").dispatch_event("change")
        if token is not None:
            page.fill("#gmtags-token", token)
            page.locator("#gmtags-token").dispatch_event("change")
        page.click("#gmtags-connect")
        page.wait_for_function(
            "() => /connected/i.test(document.querySelector('#gmtags-status')?.textContent ?? '')",
            timeout=15_000,
        )
        extensions_drawer(page, opened=False)
        page.wait_for_function("() => SillyTavern.getContext().onlineStatus !== 'no_connection'")

    def play(self, shots: Path) -> None:
        page = self.p
        turns = 0
        self.settings_shot(shots)

        def turn(text: str) -> None:
            nonlocal turns
            send(page, text)
            turns += 1
            self.all_right(f"turn {turns}")

        self.streamed_card("I study the gate.")
        turns += 1
        self.all_right("turn 1 (streamed)")
        for text in ("I duck.", "I listen.", "I search the room."):
            turn(text)
        first_chat = self.chat_id()
        check(
            any(c["chat"] == first_chat for c in self.api("/gmtags/api/chats")),
            "gmtags holds no chat named by the extension's id",
        )
        swipe_right(page)
        self.all_right("a swipe")
        edit_last(page, "(The player edited this.) ")
        self.all_right("an edit")
        turn("I rest a moment.")
        send(page, "/continue")
        self.all_right("a continue")
        send(page, "/del 1")
        self.all_right("a delete")
        self.build_character("Toma")
        turn("We bar the door.")
        gm_block = json.dumps(self.upstream.requests[-1].get("messages", []))
        check("Toma" in gm_block, "the character saved in the builder is not in the GM block")
        turn("I ask about the poison.")
        turn("I dodge the rock.")
        page.reload()
        open_sillytavern(page, self.st.url)
        if context(page, "ctx.name2") != "Warden":  # SillyTavern reopens the last chat, or not
            select_character(page, "Warden")
        self.connect()  # SillyTavern does not reconnect by itself after a reload
        if not page.locator("#gmtags-panel").is_visible():
            page.click("#gmtags-panel-button")
        self.all_right("a reload")
        turn("I watch their faces.")
        self.rename_chat(first_chat)
        turn("We push the gate.")
        check(turns >= 10, f"only {turns} turns were played")
        self.screenshots(shots)
        self.keyboard()
        self.branch(first_chat)
        self.second_chat(first_chat)

    def streamed_card(self, text: str) -> None:
        """Send a turn and see a card in the reply while it still streams."""
        page = self.p
        page.fill("#send_textarea", text)
        page.click("#send_but")
        page.wait_for_function(
            "() => getComputedStyle(document.querySelector('#mes_stop')).display !== 'none'"
            " && document.querySelector('#chat .last_mes .gmtags-card')",
            timeout=20_000,
        )
        print("  ok: a card shows while the reply streams", flush=True)
        idle(page)
        if self.token is not None:  # the panel's frame exists once the chat is played
            self.sign_in_panel()

    def keyboard(self) -> None:
        """The panel and the builder open and close by keyboard, focus going where it should."""
        page = self.p
        if page.locator("#gmtags-panel").is_visible():
            page.click("#gmtags-panel-close")
        page.focus("#gmtags-panel-button")
        page.keyboard.press("Enter")
        page.locator("#gmtags-panel").wait_for()
        check(
            page.evaluate("() => document.activeElement?.id") == "gmtags-panel-close",
            "opening the panel by keyboard does not move focus into it",
        )
        page.keyboard.press("Escape")
        page.locator("#gmtags-panel").wait_for(state="hidden")
        check(
            page.evaluate("() => document.activeElement?.id") == "gmtags-panel-button",
            "closing the panel by keyboard does not give focus back to its button",
        )
        page.focus("#gmtags-build-button")
        page.keyboard.press("Enter")
        page.locator("#gmtags-builder").wait_for()
        page.keyboard.press("Escape")
        page.locator("#gmtags-builder").wait_for(state="hidden")
        page.keyboard.press("Enter")  # focus is back on the builder's button
        page.locator("#gmtags-builder").wait_for()
        page.click("#gmtags-builder-close")
        page.click("#gmtags-panel-button")
        page.locator("#gmtags-panel").wait_for()
        print("  ok: the panel and the builder by keyboard", flush=True)

    def build_character(self, name: str) -> None:
        page = self.p
        page.click("#gmtags-build-button")
        frame = page.frame_locator("iframe.gmtags-builder, #gmtags-builder iframe").first
        frame.locator("input[name=name], #name, input#character-name").first.fill(name)
        frame.get_by_role("button", name=re.compile("^save", re.I)).first.click()
        frame.get_by_text(re.compile("saved", re.I)).first.wait_for(timeout=10_000)
        page.click("#gmtags-builder-close")
        chat_id = self.chat_id()
        state = self.api(f"/gmtags/api/chats/{chat_id}")["state"]
        check(name in state.get("gameCharacterCards", {}), f"{name} was not saved to the chat")
        self._panel_shows(name, "the builder's save")
        print(f"  ok: the builder saved {name}", flush=True)

    def _panel_shows(self, text: str, step: str) -> None:
        frame = self.p.frame_locator("#gmtags-panel iframe")
        try:
            frame.get_by_text(text).first.wait_for(timeout=PANEL_SECONDS * 1000 + 1000)
        except Exception as error:  # playwright's timeout
            raise Failed(f"after {step}: the Game panel does not show {text!r}") from error

    def rename_chat(self, chat_id: str) -> None:
        page = self.p
        old = context(page, "ctx.getCurrentChatId()")
        page.evaluate(
            "async ([old]) => {"
            " await SillyTavern.getContext().renameChat(old, old + ' renamed'); }",
            [old],
        )
        page.wait_for_function(
            "(old) => SillyTavern.getContext().getCurrentChatId() === old + ' renamed'", arg=old
        )
        page.wait_for_function(  # the renamed chat is open again and drawn
            "() => document.querySelectorAll('#chat .mes').length"
            " === SillyTavern.getContext().chat.length"
        )
        page.wait_for_timeout(1500)
        check(self.chat_id() == chat_id, "renaming the chat changed its gmtags id")
        print("  ok: a rename keeps the gmtags id", flush=True)

    def branch(self, chat_id: str) -> None:
        page = self.p
        before = len(self.api("/gmtags/api/chats"))
        send(page, "/branch-create 2")
        page.wait_for_function("() => SillyTavern.getContext().chat.length === 3", timeout=15_000)
        send(page, "I take the other path.")
        self.all_right("a turn in a branch")
        print(f"  ok: a branch plays as gmtags chat {self.chat_id()}", flush=True)
        del before, chat_id

    def second_chat(self, first: str) -> None:
        page = self.p
        send(page, "/newchat")
        page.wait_for_function("() => SillyTavern.getContext().chat.length === 1")
        send(page, "I study the gate.")
        self.all_right("the first turn of a second chat")
        check(self.chat_id() != first, "two chats of one character share a gmtags chat")
        chats = {c["chat"] for c in self.api("/gmtags/api/chats")}
        check({first, self.chat_id()} <= chats, "gmtags does not hold both chats")

    SHOTS = ("sillytavern-desktop.png", "sillytavern-phone.png", "sillytavern-phone-cards.png")
    """The screenshots' names: desktop with the panel, phone with it, phone with the cards."""

    def screenshots(self, shots: Path) -> None:
        desktop, phone_panel, phone = self.SHOTS
        page = self.p
        shots.mkdir(parents=True, exist_ok=True)
        if not page.locator("#gmtags-panel").is_visible():
            page.click("#gmtags-panel-button")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(shots / desktop))
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(1000)
        page.screenshot(path=str(shots / phone_panel))
        if page.locator("#gmtags-panel").is_visible():  # on a phone it covers the chat
            page.click("#gmtags-panel-close")
        page.wait_for_timeout(500)
        page.screenshot(path=str(shots / phone))
        page.set_viewport_size({"width": 1280, "height": 800})
        page.click("#gmtags-panel-button")  # open again for the steps after
        page.locator("#gmtags-panel").wait_for()
        print(f"  ok: screenshots in {shots}", flush=True)


def _receipts(message: str) -> tuple[str, ...]:
    return tuple(_collapse(r.group(0)) for r in RECEIPT.finditer(message))


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _chain(node: dict[str, Any], nodes: list[dict[str, Any]]) -> tuple[str, ...]:
    """The receipts of a node with the replies it continues (one message, continued)."""
    by_id = {n["id"]: n for n in nodes}
    receipts = tuple(_collapse(r) for r in node["receipts"])
    while node["kind"] == "continuation" and node["parent"] in by_id:
        node = by_id[node["parent"]]
        receipts = tuple(_collapse(r) for r in node["receipts"]) + receipts
    return receipts


def _quoted(text: str) -> str:
    return httpx.URL("http://x/" + text).raw_path.decode()[1:]


def _ends(receipts: tuple[str, ...], node: tuple[str, ...]) -> bool:
    """A stored message (a reply and its continuations) ends with a node's receipts."""
    return bool(node) and receipts[-len(node) :] == node


def run(st_dir: Path, shots: Path, keep: bool, token: str | None = None, api: str = "chat") -> int:
    from st_text import TextCheck  # (it extends Check: imported when it runs)

    work = Path(tempfile.mkdtemp(prefix="gmtags-st-check-"))
    st = SillyTavern(st_dir, work / "st-data", free_port())
    upstream = ScriptedUpstream(
        script=reply_for, prompt_script=reply_for_prompt, chunk_size=5, pace=0.04
    )
    gmtags_port = free_port()
    gmtags_url = f"http://127.0.0.1:{gmtags_port}"
    servers: list[Callable[[], None]] = []
    try:
        ruleset = json.loads((ROOT / "gmtags/demo/builder-ruleset.json").read_text())
        ruleset["clocks"] = {"sizes": [4, 6, 8], "max": 4, "text": "Tick clocks as threats grow."}
        (work / "ruleset.json").write_text(json.dumps(ruleset))
        (work / "empty.json").write_text("{}")
        gm = [str(GMTAGS)]
        subprocess.run(
            [*gm, "character", "build", "--ruleset", str(work / "ruleset.json"), "--answers",
             str(ROOT / "gmtags/demo/builder-answers.json"), "--state", str(work / "empty.json"),
             "--name", "Ilse", "--state-out", str(work / "state.json")],
            check=True, capture_output=True,
        )  # fmt: skip
        st.data_root.mkdir(parents=True)
        subprocess.run(
            [*gm, "sillytavern", "install", str(st_dir), "--data-root", str(st.data_root)],
            check=True,
        )
        model = BackgroundServer(upstream.app).start()
        servers.append(model.stop)
        log = (work / "gmtags.log").open("wb")
        served = subprocess.Popen(
            [*gm, "serve", "--ruleset", str(work / "ruleset.json"), "--state",
             str(work / "state.json"), "--upstream", f"{model.url}/v1", "--port",
             str(gmtags_port), "--db", str(work / "history.sqlite3"), "--allow-origin", st.url,
             *([] if token is None else ["--token", token])],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        servers.append(served.terminate)
        wait_http(gmtags_url + "/healthz", 30.0, served)
        tap = Tap(gmtags_url)
        if api == "text":  # the player's server URL points at the tap, which is gmtags
            tapped = BackgroundServer(tap.app).start()
            servers.append(tapped.stop)
            gmtags_url = tapped.url
        st.start(work / "sillytavern.log")
        servers.append(st.stop)
        print(
            f"SillyTavern {st.version} at {st.url}, gmtags at {gmtags_url},"
            f" {'Text' if api == 'text' else 'Chat'} Completion",
            flush=True,
        )
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            run_check = (
                TextCheck(st, gmtags_url, upstream, tap, model.url)
                if api == "text"
                else Check(st, gmtags_url, upstream, token)
            )
            run_check.page = page
            try:
                run_check.set_up()
                run_check.play(shots)
            except Exception as failure:  # a failed check, or SillyTavern not doing a step
                page.screenshot(path=str(work / "failure.png"))
                kind = "" if isinstance(failure, Failed) else f"{type(failure).__name__}: "
                print(f"FAILED: {kind}{failure}", file=sys.stderr)
                print(f"(screenshot {work / 'failure.png'})", file=sys.stderr)
                return 1
            finally:
                ours = [e for e in errors if "gmtags" in e]
                if ours:
                    print("errors in the extension:", *ours, sep="\n  ", file=sys.stderr)
                browser.close()
        print(f"st-check ({api}) passed on SillyTavern {st.version}: {len(run_check.steps)} steps")
        return 0
    finally:
        for stop in reversed(servers):
            stop()
        if not keep:
            st.remove_data()
        print(f"work folder: {work}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--st-dir", type=Path, required=True, help="a SillyTavern checkout")
    parser.add_argument("--shots", type=Path, default=ROOT / "docs")
    parser.add_argument("--keep", action="store_true", help="keep SillyTavern's data folder")
    parser.add_argument("--token", help="run gmtags with this --token (the extension sends it)")
    parser.add_argument(
        "--api",
        choices=("chat", "text"),
        default="chat",
        help="SillyTavern's Chat Completion (source Custom) or Text Completion",
    )
    arguments = parser.parse_args()
    if arguments.api == "text" and arguments.token is not None:
        parser.error("--token is for --api chat: Text Completion cannot send gmtags' token")
    return run(
        arguments.st_dir.resolve(), arguments.shots, arguments.keep, arguments.token, arguments.api
    )


if __name__ == "__main__":
    raise SystemExit(main())
