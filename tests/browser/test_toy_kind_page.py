"""The builder page draws a step kind it has never heard of: the tests' own `oath` kind
(`tests/builder/toy_kind.py`, one file and one registry line) is rendered from the view the
Python builder gives it, chosen with a click, and written into the character."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from gmtags.builder.steps import register, unregister
from gmtags.ruleset.load import load_ruleset
from gmtags.server.app import create_app
from gmtags.server.background import BackgroundServer
from gmtags.server.config import ServerConfig
from tests.browser.conftest import SHOTS
from tests.browser.test_builder_page import errors_of, open_step
from tests.builder.test_toy_kind import toy_data
from tests.builder.toy_kind import OATH


@pytest.fixture
def served() -> Iterator[str]:
    register(OATH)  # the one registry line
    try:
        config = ServerConfig(load_ruleset(toy_data()), "http://127.0.0.1:9/v1", ":memory:")
        with BackgroundServer(create_app(config)) as server:
            yield server.url
    finally:
        unregister("oath")


def test_the_page_draws_a_new_kind_from_its_view(page: Page, served: str) -> None:
    errors = errors_of(page)
    page.goto(f"{served}/gmtags/builder")
    open_step(page, "oath")
    expect(page.locator('[data-badge="oath"]')).to_have_text("1")
    group = page.get_by_role("radiogroup", name="Swear one oath")
    expect(group.get_by_role("radio")).to_have_count(2)
    page.get_by_label("By blood", exact=True).check()
    expect(page.locator('[data-badge="oath"]')).to_have_text("✓")
    expect(page.locator("#gb-character")).to_contain_text("By blood")
    page.get_by_label("By my honour", exact=True).check()
    expect(page.locator("#gb-character")).to_contain_text("By my honour")
    expect(page.get_by_label("By blood", exact=True)).not_to_be_checked()
    page.get_by_role("button", name="Undo").click()
    expect(page.get_by_label("By blood", exact=True)).to_be_checked()
    expect(page.locator("#gb-character")).to_contain_text("By blood")
    open_step(page, "potential")
    page.get_by_role("button", name="Roll Potential again").click()
    expect(page.locator("#gb-body")).to_contain_text("Potential")
    SHOTS.mkdir(parents=True, exist_ok=True)
    open_step(page, "oath")
    page.screenshot(path=str(SHOTS / "builder-toy-kind.png"), full_page=True)
    assert errors == []
