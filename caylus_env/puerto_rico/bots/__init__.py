"""Puerto Rico's bots: the scripted ``shipper`` and ``builder`` and ``mcts:SIMS``."""
