"""gmtags: makes an AI game master play by the rules.

The public interface of SPEC §1: load a ruleset, hold a snapshot, process a
response, whole (`process`) or as it streams (`StreamProcessor`); build a character
with the ruleset's guided builder (`build_character`, SPEC §10).
"""

from gmtags.builder.build import BuildResult, build_character
from gmtags.errors import AnswersError, Problem, RulesetError, SnapshotError
from gmtags.limits import Limits
from gmtags.process import ProcessResult, process
from gmtags.ruleset import Ruleset, load_ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.stream import StreamProcessor
from gmtags.tags.receipt import Receipt

__all__ = [
    "AnswersError",
    "BuildResult",
    "Limits",
    "Problem",
    "ProcessResult",
    "Receipt",
    "Ruleset",
    "RulesetError",
    "Snapshot",
    "SnapshotError",
    "StreamProcessor",
    "build_character",
    "load_ruleset",
    "process",
]
