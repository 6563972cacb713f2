"""The command line's subcommands, one module each, and what they share (`common`).

`gmtags.cli` is the entry point; it imports a subcommand's module only when that
subcommand runs, so `gmtags --help` stays fast. Nothing below the command line
imports this package: the engine, the builder, the history and the server raise
their own errors, and a command turns them into a message and an exit code.
"""
