"""The ``caylus`` command line: the one package that imports every layer.

The engine (:mod:`caylus_env.caylus.engine`) and the environment (:mod:`caylus_env`) know nothing of
the agents, the tournament harness or training; this package sits above them all and wires them
into commands. The typer application is :data:`caylus_cli.app.app`.
"""
