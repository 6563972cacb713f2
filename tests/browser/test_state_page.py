"""The state page in Chromium against `gmtags demo --serve` (SPEC §11, issue 15).

The chat is played the way SillyTavern plays it (streamed chat completions naming the chat
in `X-Gmtags-Chat`); what is asserted is what the page shows, compared with what the
proxy's JSON endpoints and the receipts say, never with numbers written here.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, Route, ViewportSize, expect

from tests.browser.conftest import SHOTS

CHAT = "lantern-watch"
SYSTEM = {"role": "system", "content": "You are the game master of Lantern Watch."}
LIVE_SECONDS = 2.0
"""SPEC §11: a new reply appears within 2 s without a reload."""


def complete(url: str, messages: list[dict[str, str]]) -> str:
    """One streamed chat completion as SillyTavern sends it; the reply's whole content."""
    body = {"model": "gmtags-demo", "messages": messages, "stream": True, "temperature": 1}
    headers = {"X-Gmtags-Chat": CHAT, "Authorization": "Bearer sk-browser-test"}
    parts: list[str] = []
    with httpx.stream(
        "POST", f"{url}/v1/chat/completions", json=body, headers=headers, timeout=20
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            for choice in json.loads(line[6:]).get("choices", []):
                parts.append(choice.get("delta", {}).get("content") or "")
    return "".join(parts)


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def gm(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def chat_json(url: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{url}/gmtags/api/chats/{CHAT}", timeout=10).json()
    return body


def now_of(receipts: list[str], marker: str) -> str:
    """The `now=` of the first receipt holding `marker`."""
    receipt = next(r for r in receipts if marker in r)
    found = re.search(r' now="([^"]*)"', receipt)
    assert found is not None
    return found.group(1)


def _text_of(node: dict[str, Any]) -> str:
    """A reply as a chat UI keeps it, for the next request (its receipts are its identity)."""
    return "The GM said: " + " ".join(node["receipts"])


def open_chat(page: Page, url: str, node: int | None = None) -> None:
    page.goto(f"{url}/gmtags/chats/{CHAT}" + ("" if node is None else f"?node={node}"))
    page.evaluate("window.notReloaded = true")


def not_reloaded(page: Page) -> bool:
    return bool(page.evaluate("window.notReloaded === true"))


HISTORY = [SYSTEM, user("I set my shoulder to the gate.")]
"""The first turn of the chat."""


@pytest.fixture
def played(serve: Callable[..., str]) -> tuple[str, str]:
    """The demo server with two turns played in chat `CHAT`: its URL and the first reply."""
    url = serve("demo", "--serve")
    first = complete(url, HISTORY)
    complete(url, [*HISTORY, gm(first), user("On.")])
    return url, first


@pytest.fixture
def demo(played: tuple[str, str]) -> str:
    """The URL of the demo server with two turns played."""
    return played[0]


class TestStatePage:
    def test_clock_pool_wounds_and_party(self, page: Page, demo: str) -> None:
        """The page shows each clock's segments, the pool's value, the wound boxes and the
        party sheet as the current snapshot and the receipts have them."""
        state, nodes = chat_json(demo)["state"], chat_json(demo)["nodes"]
        open_chat(page, demo)
        for clock in state["rulesetClocks"]:
            figure = page.locator(f'figure.clock[data-clock="{clock["name"]}"]')
            expect(figure.locator(".segment")).to_have_count(clock["size"])
            expect(figure.locator(".segment.filled")).to_have_count(clock["filled"])
            expect(figure).to_contain_text(f"{clock['filled']}/{clock['size']}")
        oil = now_of(nodes[-1]["receipts"], 'pool="Lamp oil"')
        expect(page.locator('[data-pool="Lamp oil"] .bar-value')).to_have_text(oil)
        meter = page.get_by_role("meter", name="Lamp oil")
        expect(meter).to_have_attribute("aria-valuenow", oil.split("/")[0])
        harm = now_of(nodes[-1]["receipts"], 'track="Harm"')  # "Harm 1/4 Scuffed"
        marked, length = harm.split()[1].split("/")
        boxes = page.locator('[data-track="Harm"] .box')
        expect(boxes).to_have_count(int(length))
        expect(page.locator('[data-track="Harm"] .box.marked')).to_have_count(int(marked))
        expect(page.locator('[data-track="Harm"] .box.marked').first).to_have_attribute(
            "data-kind", "knock"
        )
        party = page.locator("section.party")
        expect(party).to_contain_text("The Watch")
        post = state["gamePartySheet"]["fields"]["post"]
        expect(party).to_contain_text(post)
        expect(party.locator('[data-pool="Supplies"]')).to_be_visible()
        columns = "getComputedStyle(document.querySelector('.columns')).gridTemplateColumns"
        assert len(page.evaluate(columns).split()) == 2  # the state beside the timeline
        page.set_viewport_size({"width": 390, "height": 844})
        assert len(page.evaluate(columns).split()) == 1  # one column on a phone

    def test_a_new_reply_appears_without_reload(self, page: Page, played: tuple[str, str]) -> None:
        """A reply made while the page is open is on its timeline within 2 s, the state
        following it, and the page was not reloaded."""
        demo, first = played
        open_chat(page, demo)
        expect(page.locator(".node[data-node]")).to_have_count(len(chat_json(demo)["nodes"]))
        second = chat_json(demo)["nodes"][-1]
        assert second["current"]
        started = time.monotonic()
        spoken = [*HISTORY, gm(first), user("On."), gm(_text_of(second)), user("To the ford.")]
        complete(demo, spoken)
        newest = chat_json(demo)["nodes"][-1]
        assert newest["parent"] == second["id"]
        link = page.locator(f'a.node-link[data-node="{newest["id"]}"]')
        expect(link).to_be_visible(timeout=LIVE_SECONDS * 1000)
        assert time.monotonic() - started < LIVE_SECONDS + 0.5
        title = link.locator(".node-title").inner_text()
        expect(page.locator("#live")).to_contain_text(f"New reply: {title}")
        expect(page.locator("#jump a")).to_have_attribute("href", f"#reply-{newest['id']}")
        road = now_of(newest["receipts"], 'name="Road washed out"')
        expect(page.locator('figure.clock[data-clock="Road washed out"]')).to_contain_text(road)
        assert not_reloaded(page)

    def test_a_save_from_the_builder_shows_at_once(self, page: Page, demo: str) -> None:
        """A card the builder page saves into the chat is on the state page within 2 s."""
        open_chat(page, demo)
        card = {"abilities": {"nerve": 2, "hands": 3}}
        saved = httpx.post(
            f"{demo}/gmtags/api/builder/save",
            json={"chat": CHAT, "name": "Ada of the Ford", "card": card},
            timeout=10,
        )
        assert saved.status_code == 200
        section = page.locator('section.character[data-character="Ada of the Ford"]')
        expect(section).to_be_visible(timeout=LIVE_SECONDS * 1000)
        expect(section.locator(".gm-block")).to_contain_text("Nerve 2, Hands 3")
        assert not_reloaded(page)

    def test_a_reply_made_while_the_page_loads(self, page: Page, played: tuple[str, str]) -> None:
        """A reply made after the page was rendered but before its script followed the chat
        still appears: the first reading is compared with what the page shows."""
        demo, first = played

        def reply_then_script(route: Route) -> None:
            complete(demo, [*HISTORY, gm(first), user("Meanwhile.")])
            route.continue_()

        page.route("**/state/state.js", reply_then_script)
        open_chat(page, demo)
        newest = chat_json(demo)["nodes"][-1]
        expect(page.locator(f'a.node-link[data-node="{newest["id"]}"]')).to_be_visible(
            timeout=LIVE_SECONDS * 1000
        )
        assert not_reloaded(page)

    def test_polling_when_there_are_no_events(self, page: Page, demo: str) -> None:
        """Without EventSource the page polls the chat's JSON and still follows it."""
        page.add_init_script("delete window.EventSource")
        open_chat(page, demo)
        complete(demo, [*HISTORY, gm("The gate gives."), user("I look around.")])
        newest = chat_json(demo)["nodes"][-1]
        expect(page.locator(f'a.node-link[data-node="{newest["id"]}"]')).to_be_visible(
            timeout=LIVE_SECONDS * 1000
        )
        assert not_reloaded(page)

    def test_a_swipe_chosen_on_the_timeline_shows_its_state(
        self, page: Page, played: tuple[str, str]
    ) -> None:
        """Two requests on the same history are sibling swipes; choosing the older one shows
        the state after it, and choosing the newer one again shows its state."""
        demo, first = played
        one, spent, again, washed = swiped(demo, first)
        assert again["parent"] == one["parent"] and washed["parent"] == spent["parent"]
        assert washed["current"]
        open_chat(page, demo)
        expect(page.locator(".swipes-head")).to_have_count(2)  # both replies were swiped
        road = now_of(washed["receipts"], 'name="Road washed out"')
        clock = page.locator('figure.clock[data-clock="Road washed out"] .clock-fill')
        expect(clock).to_have_text(road)

        page.locator(f'a.node-link[data-node="{spent["id"]}"]').click()
        oil = now_of(spent["receipts"], 'pool="Lamp oil"')
        expect(page.locator('[data-pool="Lamp oil"] .bar-value')).to_have_text(oil)
        alarm = now_of(spent["receipts"], 'name="Alarm raised" tick')
        expect(page.locator('figure.clock[data-clock="Alarm raised"] .clock-fill')).to_have_text(
            alarm
        )
        chosen = page.locator(f'a.node-link[data-node="{spent["id"]}"]')
        expect(chosen).to_have_attribute("aria-current", "true")
        assert page.url.endswith(f"?node={spent['id']}") and not_reloaded(page)

        chosen.focus()  # the keyboard: on to the next reply (the newer swipe) and choose it
        page.keyboard.press("ArrowDown")
        expect(page.locator(f'a.node-link[data-node="{washed["id"]}"]')).to_be_focused()
        page.keyboard.press("Enter")
        expect(clock).to_have_text(road)
        expect(page.locator(f'a.node-link[data-node="{washed["id"]}"]')).to_have_attribute(
            "aria-current", "true"
        )

        # The README's screenshots. A desktop as the player sees it: gone to the current
        # reply (C), then the swipe before it chosen, its state beside it.
        page.set_viewport_size(DESKTOP)
        open_chat(page, demo)
        page.keyboard.press("c")
        page.locator(f'a.node-link[data-node="{spent["id"]}"]').click()
        expect(page.locator("#viewing")).to_contain_text("after Reply 2, swipe 1 of 2")
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "state-page-desktop.png"), animations="disabled")
        page.set_viewport_size(PHONE)  # a phone: the whole page, that swipe chosen
        open_chat(page, demo, spent["id"])
        page.screenshot(path=str(SHOTS / "state-page-phone.png"), full_page=True)


DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}


def swiped(url: str, first: str) -> list[dict[str, Any]]:
    """The two played replies swiped each (SillyTavern's swipe: the same request again, the
    second after the player rewrote the last message as two); the four nodes, oldest first."""
    complete(url, HISTORY)
    complete(url, [*HISTORY, gm(first), user("On."), user("I run for the ford.")])
    return chat_json(url)["nodes"]


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the window as it is scrolled now."""
    return bool(
        page.eval_on_selector(
            selector,
            "el => { const b = el.getBoundingClientRect();"
            " return b.height > 0 && b.top >= 0 && b.bottom <= window.innerHeight; }",
        )
    )


def link_of(node: dict[str, Any]) -> str:
    return f'a.node-link[data-node="{node["id"]}"]'


class TestFindingTheCurrentReply:
    """However long the timeline, the chat's current reply is one key or one tap away."""

    @pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
    def test_key_c_and_the_link_at_the_top(
        self, page: Page, played: tuple[str, str], size: ViewportSize
    ) -> None:
        """Below the fold on the page as it opens, the current reply is reached by C and by
        the "Current reply" link at the top, scrolled into view and focused."""
        demo, first = played
        *_, washed = swiped(demo, first)
        page.set_viewport_size(size)
        open_chat(page, demo)
        current = link_of(washed)
        assert not in_view(page, current)  # the page is taller than the window
        jump = page.locator("#jump a.jump-link")
        expect(jump).to_contain_text("Current reply: Reply 2, swipe 2 of 2")
        assert in_view(page, "#jump a.jump-link")

        page.keyboard.press("c")
        expect(page.locator(current)).to_be_focused()
        assert in_view(page, current)

        page.evaluate("window.scrollTo(0, 0)")
        jump.click()
        expect(page.locator(current)).to_be_focused()
        assert in_view(page, current) and page.url.endswith(f"/chats/{CHAT}")
        assert not_reloaded(page)


class TestChoosingShowsTheState:
    """Choosing a reply shows the state it left where the player is looking."""

    def test_on_a_phone_the_state_comes_into_view(
        self, page: Page, played: tuple[str, str]
    ) -> None:
        """One column: the state panel is above the timeline. Choosing a reply scrolls the
        panel into view with the state after it, and its showing line leads back."""
        demo, first = played
        _, spent, _, washed = swiped(demo, first)
        page.set_viewport_size(PHONE)
        open_chat(page, demo)
        page.locator(link_of(spent)).click()  # scrolled to it first, as a thumb would
        oil = now_of(spent["receipts"], 'pool="Lamp oil"')
        expect(page.locator('[data-pool="Lamp oil"] .bar-value')).to_have_text(oil)
        viewing = page.locator("#viewing")
        expect(viewing).to_be_focused()
        expect(viewing).to_contain_text("Showing the state after Reply 2, swipe 1 of 2")
        assert in_view(page, "#viewing") and in_view(page, '[data-pool="Lamp oil"]')
        assert not in_view(page, link_of(spent))

        viewing.locator("a.to-reply").click()  # back to the reply chosen
        expect(page.locator(link_of(spent))).to_be_focused()
        assert in_view(page, link_of(spent))
        page.locator(link_of(washed)).click()  # and on to the next one
        road = now_of(washed["receipts"], 'name="Road washed out"')
        clock = 'figure.clock[data-clock="Road washed out"]'
        expect(page.locator(f"{clock} .clock-fill")).to_have_text(road)
        assert in_view(page, "#viewing") and not_reloaded(page)

    def test_on_a_desktop_the_state_stays_beside_the_reply(
        self, page: Page, played: tuple[str, str]
    ) -> None:
        """Two columns: scrolled down to the replies, the state panel stays in view beside
        them, so choosing one shows its state with the reply still under the pointer."""
        demo, first = played
        _, spent, _, washed = swiped(demo, first)
        page.set_viewport_size(DESKTOP)
        open_chat(page, demo)
        page.keyboard.press("c")
        assert in_view(page, link_of(washed))
        scrolled = page.evaluate("window.scrollY")
        assert scrolled > 0
        page.locator(link_of(spent)).click()
        oil = now_of(spent["receipts"], 'pool="Lamp oil"')
        expect(page.locator('[data-pool="Lamp oil"] .bar-value')).to_have_text(oil)
        expect(page.locator("#viewing")).to_contain_text("after Reply 2, swipe 1 of 2")
        assert in_view(page, "#viewing") and in_view(page, '[data-pool="Lamp oil"]')
        assert in_view(page, link_of(spent)) and page.evaluate("window.scrollY") > scrolled / 2
        expect(page.locator(link_of(spent))).to_be_focused()
