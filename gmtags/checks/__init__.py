"""Check resolution: dice, outcome tiers and one module per resolution kind."""
