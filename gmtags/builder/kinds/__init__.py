"""The step kinds built in modules of their own: one module per kind, named as the kind.

A module here exposes `run(state, step)`, called when its step's turn comes in the walk,
and `view(look, step)`, the controls a player uses it by; `gmtags.builder.steps.KINDS` is
the one table of the kinds (one `register` line each). Work that needs every step done
first goes in `state.finishers`.
"""
