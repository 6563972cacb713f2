"""Shared fixtures: paths to the repository's fixtures and the reference rulesets."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmtags import Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Unmodified copies of shared/reference/rulesets (licences inside each file; see SOURCES.md).
REFERENCE_RULESETS = FIXTURES / "rulesets" / "reference"


@pytest.fixture(scope="session")
def clocks_ruleset() -> Ruleset:
    """A minimal ruleset with the default clocks (`"clocks": {}`)."""
    return load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")
