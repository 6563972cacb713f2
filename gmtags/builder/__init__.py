"""The guided character builder (004; SPEC §10; design notes in shared/BUILDER.md).

Landing in parts: `model` (the typed `sheet.builder`, checked at import with
every problem at its path), `answers` (the answers document of SPEC §10, read
strictly with every problem at its JSON path) and `dice` (creation rolls, one
seeded stream per roll). `build_character` itself is not here yet.
"""
