"""The step kinds built in modules of their own: one module per kind, named as the kind.

A module here exposes `run(state, step)`, called when its step's turn comes in the walk,
`view(look, step)`, the controls a player uses it by, and, for a kind that reads the
finished sheet, `gate(done, step)`, what it reads there for the build made again;
`gmtags.builder.steps.KINDS` is the one table of the kinds (one `register` line each). Work
that needs every step done first is asked for with `state.later`. A step writes the card
only through `state.writer`, whose record says which step wrote what.
"""
