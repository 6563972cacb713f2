"""The game-state snapshot and its transitions."""
