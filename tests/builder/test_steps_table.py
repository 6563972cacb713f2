"""gmtags/builder/steps.py `RUNS`: one table says what runs each step kind in the walk."""

from __future__ import annotations

import inspect

from gmtags.builder.steps import RUNS
from gmtags.ruleset.builder.steps import STEPS


def test_every_step_kind_the_model_reads_runs() -> None:
    """004's step kinds, as the ruleset model reads them by `kind`, are exactly the kinds the
    walk runs: a kind the model accepts always builds, and the walk runs no kind a ruleset
    cannot hold."""
    assert set(RUNS) == set(STEPS)


def test_each_runner_takes_the_walk_and_its_step() -> None:
    """Every entry is called as `run(walk, step)`."""
    for kind, run in RUNS.items():
        assert len(inspect.signature(run).parameters) == 2, kind
