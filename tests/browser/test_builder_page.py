"""The builder page in Chromium (SPEC §10, §11): a 5e character built through the page, saved
into a chat and played in a check through the proxy; the party sheet saved, refused as stale
and saved again."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from gmtags import Snapshot, load_ruleset, process
from gmtags.server.background import BackgroundServer
from gmtags.server.demo_upstream import ScriptedUpstream
from tests.browser.conftest import SHOTS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rulesets" / "builder"
FIVE_E = FIXTURES / "5e-builder.json"
CREW = FIXTURES / "crew-builder.json"
NAME = "Mira Vell"
CHAT = "builder-browser-chat"
CHECK = f'[skill_check: skill="Arcana" dc="12" who="{NAME}"]'


@pytest.fixture
def upstream() -> Iterator[BackgroundServer]:
    """A scripted model whose every reply asks for an Arcana check of the built character."""
    script = ScriptedUpstream(script=lambda messages: f"Mira squints at the runes. {CHECK}\n")
    with BackgroundServer(script.app) as server:
        yield server


def errors_of(page: Page) -> list[str]:
    """Every script error and failed request the page meets, from now on."""
    found: list[str] = []
    page.on("pageerror", lambda error: found.append(str(error)))
    page.on(
        "console", lambda message: found.append(message.text) if message.type == "error" else None
    )
    return found


def open_step(page: Page, step: str) -> None:
    page.locator(f'.gb-step[data-step="{step}"]').click()
    expect(page.locator(".gb-current")).to_have_attribute("data-step", step)


def modifier_in(text: str) -> int:
    found = re.search(r'modifier="([+-]?\d+)"', text)
    assert found, text
    return int(found[1])


class TestCharacter:
    def test_a_character_built_on_the_page_plays_its_check(
        self,
        page: Page,
        serve: Callable[..., str],
        upstream: BackgroundServer,
        tmp_path: Path,
    ) -> None:
        """Race, point buy (the remaining budget shown and falling), a skill choice, saved under
        a name into a chat: the proxy's check on that name rolls the built card's modifier."""
        db = tmp_path / "history.sqlite3"
        url = serve("serve", "--ruleset", str(FIVE_E), "--upstream", f"{upstream.url}/v1",
                    "--db", str(db))  # fmt: skip
        errors = errors_of(page)
        page.add_init_script("Math.random = () => 0.25")  # the answers' seed: same screenshots
        page.goto(f"{url}/gmtags/builder?chat={CHAT}")
        expect(page.locator('[data-badge="race"]')).to_have_text("1")

        page.get_by_label("Elf", exact=True).check()
        expect(page.locator('[data-badge="race"]')).to_have_text("✓")
        page.get_by_role("button", name="Next").click()
        expect(page.locator(".gb-current")).to_have_attribute("data-step", "subrace")
        page.get_by_label("High Elf", exact=True).check()
        open_step(page, "class")
        page.get_by_label("Wizard", exact=True).check()
        expect(page.locator('[data-badge="class"]')).to_have_text("✓")

        open_step(page, "scores")
        points = page.locator('[data-pool="scores"]')
        expect(points).to_have_text("Points left: 27 of 27")
        page.get_by_role("button", name="Raise Intelligence").click()
        expect(points).to_have_text("Points left: 26 of 27")
        for _ in range(6):
            page.get_by_role("button", name="Raise Intelligence").click()
        expect(page.locator('[data-base="int"]')).to_have_text("15")
        expect(points).to_have_text("Points left: 18 of 27")
        expect(page.locator('[data-total="int"]')).to_have_text("16")  # High Elf: +1
        page.get_by_role("button", name="Raise Dexterity").click()
        expect(points).to_have_text("Points left: 17 of 27")

        open_step(page, "skills")
        expect(page.locator('[data-badge="skills"]')).to_have_text("2")
        page.get_by_label("Arcana", exact=True).check()
        page.get_by_label("History", exact=True).check()
        expect(page.locator('[data-badge="skills"]')).to_have_text("✓")
        panel = page.locator("#gb-character")
        expect(panel).to_contain_text("Arcana (Proficient)")
        expect(panel.locator('[data-mod="int"]')).to_have_text("+3")

        page.locator("#gb-name").fill(NAME)
        expect(panel.locator("h2")).to_have_text(NAME)
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "builder-page.png"), full_page=True)
        page.locator("#gb-save-button").click()
        expect(page.locator("#gb-status")).to_contain_text(f"Saved {NAME}")

        state = httpx.get(f"{url}/gmtags/chats/{CHAT}/state").json()
        card = state["gameCharacterCards"][NAME]
        assert card["skills"]["arcana"] == "proficient"
        assert card["abilities"]["int"] == 16
        ruleset = load_ruleset(FIVE_E)
        expected = modifier_in(process(CHECK, ruleset, Snapshot.model_validate(state), seed=1).text)
        blank = modifier_in(process(CHECK, ruleset, Snapshot(), seed=1).text)
        assert expected != blank

        reply = httpx.post(
            f"{url}/v1/chat/completions",
            headers={"X-Gmtags-Chat": CHAT, "Authorization": "Bearer sk-test"},
            json={"model": "any", "messages": [{"role": "user", "content": "I read the runes."}]},
            timeout=20,
        )
        assert reply.status_code == 200
        text = reply.json()["choices"][0]["message"]["content"]
        assert f'who="{NAME}"' in text
        assert modifier_in(text) == expected

        page.set_viewport_size({"width": 390, "height": 844})
        open_step(page, "race")
        expect(page.locator(".gb-columns")).to_have_css(
            "grid-template-columns", re.compile(r"^\S+$")
        )
        page.screenshot(path=str(SHOTS / "builder-page-phone.png"), full_page=True)
        assert errors == []

    def test_undo_all_fields_and_escaping(self, page: Page, serve: Callable[..., str]) -> None:
        """Undo takes a pick back; an All fields edit goes into the card the build keeps; a
        name with markup in it is text."""
        url = serve("demo", "--serve", "--ruleset", str(FIVE_E))
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat=undo-chat")
        page.get_by_label("Dwarf", exact=True).check()
        panel = page.locator("#gb-character")
        expect(panel).to_contain_text("Dwarf")
        page.get_by_role("button", name="Undo").click()
        expect(page.locator('[data-badge="race"]')).to_have_text("1")
        expect(panel).not_to_contain_text("Dwarf")

        page.get_by_role("tab", name="All fields").click()
        page.get_by_label("Alignment", exact=True).fill("Lawful Neutral")
        expect(panel).to_contain_text("Lawful Neutral")
        page.get_by_role("button", name="Add a row to Other proficiencies and languages").click()
        page.get_by_label("Name, row 1", exact=True).fill("Lute")
        expect(panel).to_contain_text("Lute")
        page.get_by_role("tab", name="Guided").click()
        open_step(page, "race")
        page.get_by_label("Human", exact=True).check()
        expect(panel).to_contain_text("Human")
        expect(panel).to_contain_text("Lute")  # the player's row outlives the rebuild
        open_step(page, "level")
        expect(page.get_by_label("Alignment (optional)")).to_have_value("Lawful Neutral")

        page.locator("#gb-name").fill("<b>Bold</b>")
        expect(panel.locator("h2")).to_have_text("<b>Bold</b>")
        assert panel.locator("b").count() == 0
        assert errors == []

    def test_standard_array_rows_and_set(self, page: Page, serve: Callable[..., str]) -> None:
        """The standard array hands out its values; entering a rows step adds its counted
        rows; Set writes the starting values and offers Set again."""
        url = serve("demo", "--serve", "--ruleset", str(FIVE_E))
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat=kinds-5e")
        open_step(page, "scores")
        page.get_by_label("Standard array", exact=True).check()
        expect(page.locator("#gb-body")).to_contain_text("Left to assign: 15, 14, 13, 12, 10, 8")
        page.get_by_label("Intelligence", exact=True).select_option("15")
        expect(page.locator("#gb-body")).to_contain_text("Left to assign: 14, 13, 12, 10, 8")
        expect(page.locator('[data-total="int"]')).to_have_text("15")
        page.get_by_label("Roll a set", exact=True).check()
        expect(page.locator("#gb-body")).to_contain_text("Rolled: ")
        options = page.get_by_label("Strength", exact=True).locator("option")
        expect(options.nth(1)).to_be_attached()
        rolled = options.nth(1).get_attribute("value")
        assert rolled is not None
        page.get_by_label("Strength", exact=True).select_option(rolled)
        expect(page.locator('[data-base="str"]')).to_have_text(rolled)
        page.get_by_label("Point buy", exact=True).check()
        expect(page.locator('[data-pool="scores"]')).to_have_text("Points left: 27 of 27")

        open_step(page, "level")
        page.get_by_label("Level", exact=True).fill("3")
        expect(page.locator('[data-badge="level"]')).to_have_text("✓")
        open_step(page, "hit_points")
        expect(page.locator(".gb-rows tbody tr")).to_have_count(2)
        page.get_by_label("Roll, row 2", exact=True).fill("5")
        expect(page.locator("#gb-character")).to_contain_text("Hit point rolls")
        page.get_by_role("button", name="Remove row 1").click()
        expect(page.locator(".gb-rows tbody tr")).to_have_count(1)
        expect(page.get_by_label("Roll, row 1", exact=True)).to_have_value("5")

        open_step(page, "start")
        page.get_by_role("button", name="Set", exact=True).click()
        expect(page.get_by_role("button", name="Set again")).to_be_visible()
        expect(page.locator('[data-badge="start"]')).to_have_text("✓")
        assert errors == []

    def test_a_written_card_opens_described(self, page: Page, serve: Callable[..., str]) -> None:
        """A saved hand-written card (no builder record) opens described, as written; Done
        lets picks change it."""
        url = serve("demo", "--serve", "--ruleset", str(FIVE_E))
        card = {"abilities": {"str": 15}, "fields": {"race": "Elf"}}
        saved = httpx.post(f"{url}/gmtags/api/builder/save",
                           json={"chat": "told", "name": "Bram", "card": card})  # fmt: skip
        assert saved.status_code == 200
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat=told&name=Bram")
        expect(page.locator("#gb-name")).to_have_value("Bram")
        expect(page.locator(".gb-described")).to_be_visible()
        expect(page.locator('#gb-character [data-score="str"]')).to_have_text("15")
        page.get_by_role("button", name="Done: let picks change the sheet").click()
        expect(page.locator(".gb-described")).to_have_count(0)
        assert errors == []

    def test_over_budget_and_a_step_not_required(
        self, page: Page, serve: Callable[..., str], tmp_path: Path
    ) -> None:
        """A point buy 1 point over budget: the badge says how far over ("1 · 1 over", never
        "-1 left") and the step says why (004: "puntos restantes negativos cuando se ha
        gastado de más"); the one choice still waiting is "1 choice still waits". A race step
        whose `requiredWhen` reads 0 counts nothing and says it is not required."""
        data = json.loads(FIVE_E.read_text(encoding="utf-8"))
        steps = {s["id"]: s for s in data["sheet"]["builder"]["steps"]}
        data["sheet"]["builder"]["steps"] = [
            steps["race"] | {"requiredWhen": {"const": 0}},
            steps["scores"],
            steps["languages"],
        ]
        ruleset = tmp_path / "ruleset.json"
        ruleset.write_text(json.dumps(data), encoding="utf-8")
        url = serve("demo", "--serve", "--ruleset", str(ruleset))
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat=over-budget")
        expect(page.locator('[data-badge="race"]')).to_have_text("✓")
        expect(page.locator('[data-required="no"]')).to_contain_text("Not required")
        open_step(page, "scores")
        page.get_by_label("Manual entry", exact=True).check()
        for ability, score in (("Strength", 15), ("Dexterity", 15), ("Constitution", 15)):
            page.get_by_label(ability, exact=True).fill(str(score))
            expect(page.locator(f'[data-base="{ability[:3].lower()}"]')).to_have_text(str(score))
        page.get_by_label("Intelligence", exact=True).fill("9")
        expect(page.locator('[data-base="int"]')).to_have_text("9")
        page.get_by_label("Point buy", exact=True).check()
        expect(page.locator('[data-pool="scores"]')).to_have_text("Points left: -1 of 27")
        expect(page.locator('[data-badge="scores"]')).to_have_text("1 · 1 over")
        expect(page.locator(".gb-reasons")).to_have_text("1 point over budget (28 spent of 27)")
        expect(page.locator("[data-waiting]")).to_have_text(
            "1 choice still waits (Save works anyway)."
        )
        expect(page.locator('[data-required="no"]')).to_have_count(0)
        page.get_by_role("button", name="Lower Intelligence").click()
        expect(page.locator('[data-badge="scores"]')).to_have_text("✓")
        expect(page.locator("[data-waiting]")).to_have_text("Every step is done.")
        assert errors == []

    def test_every_step_kind_renders(self, page: Page, serve: Callable[..., str]) -> None:
        """Each fixture builder's every step opens without a script error (allocate, spend,
        rows, roll, initialize and the rest)."""
        for name in ("points-builder.json", "vtm-builder.json", "coc-builder.json",
                     "fate-builder.json"):  # fmt: skip
            url = serve("demo", "--serve", "--ruleset", str(FIXTURES / name))
            errors = errors_of(page)
            page.goto(f"{url}/gmtags/builder?chat=kinds")
            steps = page.locator(".gb-step")
            expect(steps.first).to_be_visible()
            n = 0
            while n < steps.count():  # a step may hide others (profiles, `when`)
                steps.nth(n).click()
                n += 1
                expect(page.locator(".gb-step-body")).to_be_visible()
                buttons = page.locator(".gb-step-body .gb-stepper button:not([disabled])")
                if buttons.count():
                    buttons.last.click()
                    expect(page.locator("#gb")).to_have_attribute("data-building", "0")
                    expect(page.locator("#gb-status")).not_to_have_class("gb-error")
            assert errors == [], name


def point_buy_only(tmp_path: Path) -> Path:
    """The 5e sample whose scores step offers point buy alone and no `default`: a blank
    character starts with no method in force (004: `default` "es el método con el que
    empieza un personaje que el creador inicia desde una ficha en blanco")."""
    data = json.loads(FIVE_E.read_text(encoding="utf-8"))
    for step in data["sheet"]["builder"]["steps"]:
        if step["kind"] == "abilities":
            step["methods"] = {"pointBuy": step["methods"]["pointBuy"]}
            step.pop("default", None)
    ruleset = tmp_path / "point-buy-only.json"
    ruleset.write_text(json.dumps(data), encoding="utf-8")
    return ruleset


def build_bodies(page: Page) -> list[dict[str, Any]]:
    """The body of every build the page asks for, from now on."""
    bodies: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda request: (
            bodies.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/gmtags/api/builder/build")
            else None
        ),
    )
    return bodies


def method_of(body: dict[str, Any]) -> Any:
    return body["answers"].get("steps", {}).get("scores", {}).get("method")


class TestPointBuyOnly:
    @pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
    def test_the_lone_method_shows_its_controls_and_a_score_is_typed(
        self, page: Page, serve: Callable[..., str], tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """A scores step offering point buy alone shows its controls at once, every score at
        the table's lowest (004: "desde la más baja, en la que empiezan todas"), yet no method
        is in force until the player acts (only `default` starts one): the first change
        chooses it and is sent with it. A score is typed as well as stepped; a number off the
        table is marked and never sent."""
        url = serve("demo", "--serve", "--ruleset", str(point_buy_only(tmp_path)))
        errors = errors_of(page)
        bodies = build_bodies(page)
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{url}/gmtags/builder?chat=lone-method")
        open_step(page, "scores")
        expect(page.locator('[data-badge="scores"]')).to_have_text("1")
        expect(page.locator(".gb-reasons")).to_have_count(0)
        expect(page.locator("#gb-body")).to_contain_text(
            "Point buy is this step's only method: your first change to a score chooses it"
        )
        expect(page.get_by_label("Point buy", exact=True)).not_to_be_checked()
        expect(page.get_by_label("Intelligence", exact=True)).to_have_value("8")
        expect(page.locator('[data-base="int"]')).to_have_text("8")
        expect(page.locator('[data-total="int"]')).to_have_text("—")
        expect(page.get_by_role("button", name="Lower Intelligence")).to_be_disabled()
        assert bodies and all(method_of(b) is None for b in bodies)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the scores step is {width}px wide at {size[0]}px"

        sent = len(bodies)
        page.get_by_role("button", name="Raise Intelligence").click()
        points = page.locator('[data-pool="scores"]')
        expect(points).to_have_text("Points left: 26 of 27")
        expect(page.get_by_label("Point buy", exact=True)).to_be_checked()
        expect(page.locator('[data-badge="scores"]')).to_have_text("26 left")
        expect(page.locator('[data-total="int"]')).to_have_text("9")
        assert method_of(bodies[sent]) == "pointBuy"

        strength = page.get_by_label("Strength", exact=True)
        strength.fill("14")
        expect(page.locator('[data-base="str"]')).to_have_text("14")
        expect(points).to_have_text("Points left: 19 of 27")
        expect(page.get_by_label("Strength", exact=True)).to_have_value("14")
        sent = len(bodies)
        strength.fill("20")
        expect(strength).to_have_attribute("aria-invalid", "true")
        page.wait_for_timeout(400)  # past the page's debounce: nothing was sent
        assert len(bodies) == sent
        expect(page.locator('[data-base="str"]')).to_have_text("14")
        strength.press("Tab")
        expect(strength).to_have_value("14")
        expect(strength).to_have_attribute("aria-invalid", "false")
        page.get_by_role("button", name="Lower Strength").click()
        expect(page.locator('[data-base="str"]')).to_have_text("13")
        expect(page.get_by_label("Strength", exact=True)).to_have_value("13")
        expect(points).to_have_text("Points left: 21 of 27")
        SHOTS.mkdir(exist_ok=True)
        shot = "builder-scores.png" if size[0] > 600 else "builder-scores-phone.png"
        page.screenshot(path=str(SHOTS / shot), full_page=True)
        assert errors == []

    def test_no_half_sheet_before_a_method(
        self, page: Page, serve: Callable[..., str], tmp_path: Path
    ) -> None:
        """Before a method is chosen the sheet shows no scores, not the one a pick raised
        ("Lo que añaden las selecciones va encima"), and says they are not chosen yet. Save
        still works (Next "nunca bloquea (un jugador puede dejar elecciones para más tarde)"):
        it stores exactly what the builder built and says the scores are still to choose;
        reopened, the character still has no method until the player acts."""
        url = serve("demo", "--serve", "--ruleset", str(point_buy_only(tmp_path)))
        chat = "no-half-sheet"
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat={chat}")
        panel = page.locator("#gb-character")
        expect(panel.locator('[data-scores="unchosen"]')).to_contain_text("Not chosen yet")
        page.get_by_label("Dwarf", exact=True).check()
        expect(panel).to_contain_text("Dwarf")
        expect(panel.locator('[data-scores="unchosen"]')).to_be_visible()
        expect(panel.locator("[data-score]")).to_have_count(0)  # not Constitution alone

        page.locator("#gb-name").fill("Hald")
        page.locator("#gb-save-button").click()
        status = page.locator("#gb-status")
        expect(status).to_contain_text("Saved Hald")
        expect(status).to_contain_text("scores are not chosen yet")
        card = httpx.get(f"{url}/gmtags/chats/{chat}/state").json()["gameCharacterCards"]["Hald"]
        built = httpx.post(
            f"{url}/gmtags/api/builder/build", json={"answers": card["builder"]["answers"]}
        ).json()
        assert card == built["card"]  # what the builder built, nothing patched on the page
        assert "method" not in card["builder"]["answers"]["steps"].get("scores", {})

        page.goto(f"{url}/gmtags/builder?chat={chat}&name=Hald")
        expect(panel).to_contain_text("Dwarf")
        expect(panel.locator('[data-scores="unchosen"]')).to_be_visible()
        open_step(page, "scores")
        page.get_by_role("button", name="Raise Wisdom").click()
        expect(panel.locator('[data-scores="unchosen"]')).to_have_count(0)
        expect(panel.locator("[data-score]")).to_have_count(6)
        expect(panel.locator('[data-score="con"]')).to_have_text("10")  # 8 + the dwarf's 2
        expect(panel.locator('[data-score="wis"]')).to_have_text("9")
        assert errors == []


class TestOnePick:
    @pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
    def test_a_step_of_one_pick_is_a_radio_group(
        self, page: Page, serve: Callable[..., str], tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """A catalog step that takes one pick (004: "con max 1, una selección nueva sustituye a
        la anterior") is one radio group: a new pick replaces the other, the arrow keys move
        it, and an optional step (subrace, min 0) offers None to clear it."""
        url = serve("demo", "--serve", "--ruleset", str(point_buy_only(tmp_path)))
        errors = errors_of(page)
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{url}/gmtags/builder?chat=one-pick")
        group = page.get_by_role("radiogroup", name="Race")
        expect(group).to_be_visible()
        expect(page.locator('.gb-step-body input[type="checkbox"]')).to_have_count(0)
        expect(group.get_by_role("radio", name="None", exact=True)).to_have_count(0)  # required
        page.get_by_label("Elf", exact=True).check()
        expect(page.get_by_label("Elf", exact=True)).to_be_checked()
        panel = page.locator("#gb-character")
        expect(panel).to_contain_text("Elf")
        page.get_by_label("Dwarf", exact=True).check()
        expect(panel).to_contain_text("Dwarf")
        expect(page.get_by_label("Elf", exact=True)).not_to_be_checked()
        expect(page.locator('[data-badge="race"]')).to_have_text("✓")

        page.get_by_label("Dwarf", exact=True).focus()
        page.keyboard.press("ArrowDown")
        checked = group.locator("input:checked")
        expect(checked).to_have_count(1)
        expect(checked).not_to_have_id("gb-pick-race-dwarf")
        expect(checked).to_be_focused()
        chosen = checked.get_attribute("id")
        expect(page.locator("#gb")).to_have_attribute("data-building", "0")
        expect(page.locator(f"#{chosen}")).to_be_checked()
        expect(panel).not_to_contain_text("Dwarf")

        page.get_by_label("Elf", exact=True).check()
        open_step(page, "subrace")
        optional = page.get_by_role("radiogroup", name="Subrace")
        none = optional.get_by_role("radio", name="None", exact=True)
        expect(none).to_be_checked()
        page.get_by_label("High Elf", exact=True).check()
        expect(panel).to_contain_text("High Elf")
        none.check()
        expect(page.get_by_label("High Elf", exact=True)).not_to_be_checked()
        expect(panel).not_to_contain_text("High Elf")
        assert errors == []


class TestParty:
    def test_the_party_sheet_saves_and_a_stale_save_is_shown(
        self, page: Page, serve: Callable[..., str]
    ) -> None:
        """The crew's builder reads the chat's members; Save raises the revision; a save made
        meanwhile makes the next one 409 (the latest shown, the draft kept); Save again wins."""
        url = serve("demo", "--serve", "--ruleset", str(CREW))
        chat = "crew-chat"
        for member in ("Vex", "Ada", "Rook"):
            saved = httpx.post(f"{url}/gmtags/api/builder/save",
                               json={"chat": chat, "name": member, "card": {}})  # fmt: skip
            assert saved.status_code == 200
        errors = errors_of(page)
        page.goto(f"{url}/gmtags/builder?chat={chat}&party=1")
        page.get_by_label("Shadows", exact=True).check()
        expect(page.locator('[data-badge="crew_type"]')).to_have_text("✓")
        open_step(page, "upgrades")
        expect(page.locator('[data-pool="upgrade_points"]')).to_contain_text("0 of 3 spent")
        open_step(page, "lair")
        page.get_by_label("Lair", exact=True).fill("A flooded chapel")
        page.locator("#gb-save-button").click()
        status = page.locator("#gb-status")
        expect(status).to_contain_text("revision 1")
        sheet = httpx.get(f"{url}/gmtags/chats/{chat}/state").json()["gamePartySheet"]
        assert sheet["fields"]["lair"] == "A flooded chapel"

        theirs: dict[str, Any] = {"fields": {"lair": "The old mill", "crew_type": "Bravos"}}
        other = httpx.post(
            f"{url}/gmtags/api/builder/save",
            json={"chat": chat, "party": True, "sheet": theirs, "revision": 1},
        )
        assert other.json()["state"]["gamePartySheetRevision"] == 2
        page.get_by_label("Lair", exact=True).fill("A flooded chapel, dry at last")
        page.locator("#gb-save-button").click()
        expect(status).to_contain_text("Someone else saved")
        expect(page.locator("#gb-latest")).to_contain_text("The old mill")
        expect(page.get_by_label("Lair", exact=True)).to_have_value("A flooded chapel, dry at last")
        page.locator("#gb-save-button").click()
        expect(status).to_contain_text("revision 3")
        state = httpx.get(f"{url}/gmtags/chats/{chat}/state").json()
        assert state["gamePartySheet"]["fields"]["lair"] == "A flooded chapel, dry at last"
        assert json.dumps(state).count("The old mill") == 0
        assert [e for e in errors if "409 (Conflict)" not in e] == []  # the stale save
