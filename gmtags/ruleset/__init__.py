"""Pydantic models of the ruleset file and its import validation.

Importing `validate` registers its cross-reference passes in `load.CHECKS`.
"""

from gmtags.ruleset import validate as validate
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset

__all__ = ["Ruleset", "load_ruleset"]
