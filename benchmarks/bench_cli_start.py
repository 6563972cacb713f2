"""How fast `gmtags --help` and `gmtags --version` answer (SPEC §14: no ruleset machinery
is imported for them), against an interpreter that only imports click.

Like hyperfine: each command is run `RUNS` times as a fresh process, the runs of
the commands interleaved so the load of the machine falls on each alike, and the
median wall time reported; then the ratio of `--help` to `import click` (what the
command line costs beyond the one library it cannot do without). The goal is
under 0.25 s for each.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 15
GOAL = 0.25
"""Seconds: SPEC §14's "quickly", as issue 29 measures it."""


def _gmtags() -> list[str]:
    """The `gmtags` console script of this environment, else the module run by this Python."""
    script = Path(sys.executable).parent / "gmtags"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gmtags.cli"]


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    commands = {
        "gmtags --help": [*_gmtags(), "--help"],
        "gmtags --version": [*_gmtags(), "--version"],
        'python -c "import click"': [sys.executable, "-c", "import click"],
        'python -c "pass"': [sys.executable, "-c", "pass"],
    }
    for command in commands.values():
        _wall(command)  # warm the file cache and the bytecode
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(RUNS):
        for name, command in commands.items():
            times[name].append(_wall(command))
    median = {name: statistics.median(runs) for name, runs in times.items()}
    print(f"command line start-up, median of {RUNS} runs (min … max):")
    for name, runs in times.items():
        low, high = min(runs) * 1000, max(runs) * 1000
        print(f"  {name:<26} {median[name] * 1000:7.1f} ms  ({low:.1f} … {high:.1f})")
    ratio = median["gmtags --help"] / median['python -c "import click"']
    print(f"  --help / import click:     {ratio:7.2f}×")
    for name in ("gmtags --help", "gmtags --version"):
        met = "met" if median[name] < GOAL else "NOT met"
        print(f"goal: {name} under {GOAL} s: {median[name]:.3f} s, {met}")


if __name__ == "__main__":
    main()
