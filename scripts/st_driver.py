"""Driving a real SillyTavern in headless Chromium, as a player does (for `st_check.py`).

Each helper does what a player does in SillyTavern 1.12's own interface (its
buttons, its text box, its slash commands typed in the text box) and waits for
SillyTavern to finish; reads go through `SillyTavern.getContext()`, the
extension API. Nothing here stands in for SillyTavern: it is the real server
from a SillyTavern checkout (`node server.js`), with a data folder of its own.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

GENERATION_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_http(url: str, seconds: float, process: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until `url` answers (any status below 500)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the process serving {url} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {seconds:.0f} s")


@dataclass
class SillyTavern:
    """A SillyTavern server run from `st_dir` with its own data folder."""

    st_dir: Path
    data_root: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def version(self) -> str:
        return str(json.loads((self.st_dir / "package.json").read_text())["version"])

    @property
    def user_dir(self) -> Path:
        return self.data_root / "default-user"

    def start(self, log: Path) -> None:
        if not (self.st_dir / "server.js").is_file():
            raise SystemExit(f"{self.st_dir} is not a SillyTavern checkout (no server.js)")
        if not (self.st_dir / "node_modules").is_dir():
            raise SystemExit(f"run `npm install` in {self.st_dir} first")
        command = [
            "node",
            "server.js",
            "--port",
            str(self.port),
            "--dataRoot",
            str(self.data_root),
            "--autorun",
            "false",
            "--listen",
            "false",
        ]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command, cwd=self.st_dir, stdout=out, stderr=subprocess.STDOUT
            )
        wait_http(self.url + "/", 90.0, self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def chat_files(self, character: str) -> list[Path]:
        return sorted((self.user_dir / "chats" / character).glob("*.jsonl"))

    def remove_data(self) -> None:
        shutil.rmtree(self.data_root, ignore_errors=True)


def context(page: Page, expression: str) -> Any:
    """Evaluate `expression` with `ctx` bound to `SillyTavern.getContext()`."""
    return page.evaluate(
        f"() => {{ const ctx = SillyTavern.getContext(); return ({expression}); }}"
    )


def open_sillytavern(page: Page, url: str) -> None:
    """Load SillyTavern and answer its first-run persona question."""
    page.goto(url + "/")
    page.wait_for_function("() => window.SillyTavern && document.querySelector('#send_textarea')")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        persona = page.locator("dialog.popup:has-text('Your Persona')")
        if persona.count() and persona.first.is_visible():
            persona.locator(".popup-input").fill("Rook")
            persona.locator(".popup-button-ok").click()
            break
        if page.evaluate("() => !document.querySelector('#loader')"):
            time.sleep(1.0)
            if not page.locator("dialog.popup:has-text('Your Persona')").count():
                break
        time.sleep(0.3)
    page.wait_for_function("() => !document.querySelector('#loader')")


def extensions_drawer(page: Page, opened: bool) -> None:
    """Open (or close) SillyTavern's Extensions drawer and wait for its slide to end.

    SillyTavern ignores a click on a drawer that is still sliding (its `resizing` class, some
    250 ms), and a drawer that is closing is still visible: so the drawer's state is read
    from its `openDrawer` class once no slide is under way, and clicked only when it differs.
    """
    settled = "() => !document.querySelector('#rm_extensions_block.resizing')"
    page.wait_for_function(settled)
    is_open = page.locator("#rm_extensions_block.openDrawer").count() > 0
    if is_open != opened:
        page.click("#extensions-settings-button")
        page.wait_for_function(settled)


def create_character(page: Page, name: str, greeting: str) -> None:
    """Create a character through SillyTavern's own character endpoint, then select it."""
    status = page.evaluate(
        """async ([name, greeting]) => {
            const headers = SillyTavern.getContext().getRequestHeaders();
            headers['Content-Type'] = 'application/x-www-form-urlencoded';
            const form = new URLSearchParams({
                ch_name: name, description: 'The game master of a gritty fantasy game.',
                first_mes: greeting, personality: '', scenario: '', mes_example: '',
                talkativeness: '0.5', fav: 'false', world: '', creator: '', creator_notes: '',
                system_prompt: '', post_history_instructions: '', tags: '', character_version: '',
                alternate_greetings: '', depth_prompt_prompt: '', depth_prompt_depth: '4',
                depth_prompt_role: 'system', extensions: '{}'});
            const answer = await fetch('/api/characters/create',
                {method: 'POST', headers, body: form});
            return answer.status;
        }""",
        [name, greeting],
    )
    if status != 200:
        raise RuntimeError(f"SillyTavern refused to create {name!r}: {status}")
    page.reload()
    open_sillytavern(page, page.url.split("/#")[0].rstrip("/"))
    select_character(page, name)


def select_character(page: Page, name: str) -> None:
    page.wait_for_function(
        "(name) => SillyTavern.getContext().characters.some(c => c.name === name)", arg=name
    )
    entry = page.locator(
        f"#rm_print_characters_block .character_select:has(.ch_name:text-is('{name}'))"
    )
    if not entry.is_visible():
        page.click("#rightNavDrawerIcon")  # the character list
        page.click("#rm_button_characters")
    entry.click()
    page.wait_for_function(
        "(name) => SillyTavern.getContext().name2 === name"
        " && SillyTavern.getContext().chat.length > 0",
        arg=name,
    )


def idle(page: Page, seconds: float = GENERATION_SECONDS) -> None:
    """Wait until no generation runs (the stop button hidden, the send button shown)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('#mes_stop')).display === 'none'",
        timeout=seconds * 1000,
    )
    page.wait_for_timeout(300)


def send(page: Page, text: str) -> None:
    """Type `text` in the chat box and send it (a turn, or a slash command); wait for the end."""
    before = context(page, "ctx.chat.length")
    page.fill("#send_textarea", text)
    page.click("#send_but")
    if not text.startswith("/"):
        page.wait_for_function(
            "(n) => SillyTavern.getContext().chat.length >= n + 2", arg=before, timeout=30_000
        )
    idle(page)


def swipe_right(page: Page) -> None:
    """Swipe the last reply to the right: SillyTavern generates a new swipe."""
    page.hover("#chat .last_mes")
    page.click("#chat .last_mes .swipe_right")
    idle(page)


def edit_last(page: Page, change: str) -> None:
    """Edit the last message's text with SillyTavern's pencil, prepending `change`."""
    page.hover("#chat .last_mes")
    page.click("#chat .last_mes .mes_edit")
    area = page.locator("#curEditTextarea")
    area.wait_for()
    area.fill(change + area.input_value())
    page.click("#chat .last_mes .mes_edit_done")
    page.wait_for_timeout(500)


def chat_texts(page: Page) -> list[dict[str, Any]]:
    return list(
        context(page, "ctx.chat.map((m, i) => ({i, is_user: m.is_user, mes: m.mes}))") or []
    )


TEXT_URL_INPUTS = {
    "llamacpp": "#llamacpp_api_url_text",
    "koboldcpp": "#koboldcpp_api_url_text",
    "ollama": "#ollama_api_url_text",
}
"""The server URL field of each Text Completion source (`public/index.html`)."""


def choose_main_api(page: Page, api: str) -> None:
    """Choose SillyTavern's main API in its API Connections menu (`#main_api`: `openai` is
    Chat Completion, `textgenerationwebui` Text Completion), as a player does."""
    page.evaluate("(api) => $('#main_api').val(api).trigger('change')", api)
    page.wait_for_function("(api) => SillyTavern.getContext().mainApi === api", arg=api)


def use_text_completion(page: Page, source: str, url: str) -> None:
    """Set SillyTavern's main API to Text Completion, `source` at `url`, and press Connect,
    through its own controls (the API menu, the source menu, the URL field, Connect)."""
    page.evaluate(
        """([source, url, field]) => {
            $('#main_api').val('textgenerationwebui').trigger('change');
            $('#textgen_type').val(source).trigger('change');
            $(field).val(url).trigger('input');
            $('#api_button_textgenerationwebui').trigger('click');
        }""",
        [source, url, TEXT_URL_INPUTS[source]],
    )
    # The URL field's server-history menu opens 300 ms after an input (jQuery UI's
    # autocomplete, `public/scripts/server-history.js`); a player's click away closes it.
    page.wait_for_timeout(500)
    page.evaluate("(field) => $(field).autocomplete('close')", TEXT_URL_INPUTS[source])
    page.wait_for_function("() => !$('.ui-autocomplete:visible').length")
    page.wait_for_function(
        "([source]) => SillyTavern.getContext().mainApi === 'textgenerationwebui'"
        " && $('#textgen_type').val() === source"
        " && SillyTavern.getContext().onlineStatus !== 'no_connection'",
        arg=[source],
        timeout=30_000,
    )


def use_instruct(page: Page, template: str, system_prompt: str) -> None:
    """Instruct mode on with `template` as instruct and context template, streaming on, and
    `system_prompt` as the System Prompt, through SillyTavern's Advanced Formatting panel."""
    page.evaluate(
        """([template, system]) => {
            $('#instruct_presets').val(template).trigger('change');
            $('#context_presets').val(template).trigger('change');
            $('#instruct_enabled').prop('checked', true).trigger('input').trigger('change');
            $('#sysprompt_enabled').prop('checked', true).trigger('input').trigger('change');
            $('#sysprompt_content').val(system).trigger('input');
            $('#streaming_textgenerationwebui').prop('checked', true).trigger('input')
                .trigger('change');
        }""",
        [template, system_prompt],
    )
    page.wait_for_timeout(500)
