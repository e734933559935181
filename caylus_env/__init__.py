"""caylus-env: the board game Caylus (2005) as a fast PettingZoo environment."""

__version__ = "0.1.0"
