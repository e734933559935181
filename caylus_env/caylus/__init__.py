"""Caylus (2005): everything that is only Caylus: its engine, observation, rendering, replay
page drawing, bots and its registration with the platform."""
