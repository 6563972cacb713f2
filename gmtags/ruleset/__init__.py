"""Pydantic models of the ruleset file and its import validation (`load`, then `validate`)."""

from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset

__all__ = ["Ruleset", "load_ruleset"]
