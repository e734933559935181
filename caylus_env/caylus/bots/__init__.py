"""Caylus's bots: the scripted ``castle``, ``town`` and ``economy`` and ``mcts:SIMS``."""
