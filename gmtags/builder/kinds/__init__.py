"""The step kinds built in modules of their own: one module per kind, named as the kind.

A module here exposes `run(state, step)`, called when its step's turn comes in the walk
(`gmtags.builder.steps.RUNS`, the one table of what runs each kind); work that needs every
step done first goes in `state.finishers`.
"""
