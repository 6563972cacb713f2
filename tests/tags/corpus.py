"""The corpus of model-written replies (issue 28, SPEC §2.1): its goldens, checked or rewritten.

`fixtures/replies/` holds one file per family of what models write (name
spellings, wrapping, fences, quoting, refusals, reasoning, near misses, whole
replies per ruleset), in the golden format `gmtags.testing` reads. A person
writes a case's title, meta (`- ruleset:`, `- seed:`), `snapshot` and `input`,
and an empty `cards` section when the case should show cards; this command
fills `text`, `display` (and `cards`) from the gmtags of today:

    python -m tests.tags.corpus            # which cases differ from what gmtags gives
    python -m tests.tags.corpus --update   # rewrite those sections (then read the diff)

A case marked `- xfail: <reason>` records a known bug: its goldens say what is
right, written by a person, and `--update` leaves them alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from gmtags import ProcessResult, Ruleset, Snapshot, load_ruleset, process
from gmtags.state.snapshot import load_snapshot
from gmtags.testing import GoldenCase, read_cases
from tests.conftest import FIXTURES

CORPUS = FIXTURES / "replies"
RULESETS = FIXTURES / "rulesets"
FILLED = ("text", "display", "cards")
"""The sections this command writes; `cards` only on a case that has the section."""
ORDER = ("snapshot", "input", "text", "display", "cards", "snapshot after")
"""The order sections are written in; any other section follows, in its own order."""
_LEADING_BACKTICKS = re.compile(r"^`*", re.MULTILINE)


@cache
def ruleset(name: str) -> Ruleset:
    """A ruleset under fixtures/rulesets, loaded once."""
    return load_ruleset(RULESETS / name)


def start(case: GoldenCase) -> Snapshot | None:
    """The case's start snapshot (None: the empty one)."""
    return load_snapshot(case.json_section("snapshot")) if "snapshot" in case.sections else None


def run(case: GoldenCase) -> ProcessResult:
    """What gmtags makes of the case's reply, with its ruleset, snapshot and seed."""
    return process(case.sections["input"], ruleset(case.meta["ruleset"]), start(case), case.seed)


def produced(case: GoldenCase, result: ProcessResult) -> dict[str, str]:
    """The sections gmtags fills for `case`: text, display, and cards where it has them."""
    found = {"text": result.text, "display": result.display}
    if "cards" in case.sections:
        found["cards"] = result.cards
    return found


def cases() -> list[GoldenCase]:
    """Every case of the corpus, file by file in name order."""
    return [case for path in files() for case in read_cases(path)]


def files() -> list[Path]:
    """The corpus files, in name order."""
    return sorted(CORPUS.glob("*.md"))


def differing(case: GoldenCase) -> list[str]:
    """The sections of `case` that are not what gmtags gives today."""
    found = produced(case, run(case))
    return [name for name, value in found.items() if case.sections.get(name) != value]


# -- writing a file back ---------------------------------------------------------


def fence_for(content: str) -> str:
    """Backticks that fence `content`: three, or one more than the longest run a line of
    it starts with, so a reply holding a code fence is fenced by a longer one."""
    longest = max(len(run) for run in _LEADING_BACKTICKS.findall(content))
    return "`" * max(3, longest + 1)


def render_case(case: GoldenCase, sections: dict[str, str]) -> str:
    """One case in the golden format, its sections in `ORDER`."""
    lines = [f"# {case.title}", *(f"- {key}: {value}" for key, value in case.meta.items())]
    names = [name for name in ORDER if name in sections]
    names += [name for name in sections if name not in ORDER]
    for name in names:
        content = sections[name]
        fence = fence_for(content)
        info = "json" if name.startswith("snapshot") else "text"
        lines += ["", f"## {name}", f"{fence}{info}", content, fence]
    return "\n".join(lines) + "\n"


def preamble(path: Path) -> str:
    """What a file holds before its first case (a note on the family), kept as it is."""
    text = path.read_text(encoding="utf-8")
    first = re.search(r"^# ", text, re.MULTILINE)
    return text if first is None else text[: first.start()]


def render_file(path: Path, filled: Sequence[tuple[GoldenCase, dict[str, str]]]) -> str:
    """A whole corpus file: its preamble, then each case with the sections given."""
    return preamble(path) + "\n".join(render_case(case, sections) for case, sections in filled)


def update(path: Path) -> list[str]:
    """Fill `path`'s cases from gmtags today (xfail cases kept); the ids of those changed."""
    changed: list[str] = []
    filled: list[tuple[GoldenCase, dict[str, str]]] = []
    for case in read_cases(path):
        sections = dict(case.sections)
        if "xfail" not in case.meta:
            found = produced(case, run(case))
            if any(sections.get(name) != value for name, value in found.items()):
                changed.append(case.id)
            sections.update(found)
        filled.append((case, sections))
    text = render_file(path, filled)
    if text != path.read_text(encoding="utf-8"):
        path.write_text(text, encoding="utf-8")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Report (or with --update, rewrite) the cases whose goldens differ from gmtags today."""
    parser = argparse.ArgumentParser(prog="python -m tests.tags.corpus", description=__doc__)
    parser.add_argument("--update", action="store_true", help="rewrite the goldens that differ")
    args = parser.parse_args(argv)
    if args.update:
        changed = [case_id for path in files() for case_id in update(path)]
        for case_id in changed:
            print(f"updated  {case_id}")
        print(f"{len(changed)} case(s) updated")
        return 0
    differ = 0
    for case in cases():
        names = differing(case)
        if not names:
            continue
        if "xfail" in case.meta:
            print(f"xfail    {case.id}: {', '.join(names)} ({case.meta['xfail']})")
        else:
            differ += 1
            print(f"differs  {case.id}: {', '.join(names)}")
    hint = "; run with --update, then read the diff" if differ else ""
    print(f"{differ} case(s) differ{hint}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
