"""The package version and the command's name, in one place: ``pyproject.toml`` reads the
version (``[tool.setuptools.dynamic]``), game records and run directories stamp it, the command
line and the files that quote a command (dataset manifests, reports) use the name, and
importing this module pulls in nothing else."""

__version__ = "0.3.0"
#: The command-line program (``[project.scripts]`` in ``pyproject.toml``). It is also the name of
#: a game: it is written here once, as the program's.
PROGRAM = "caylus"
