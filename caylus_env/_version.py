"""The package version, in one place: ``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``),
game records and run directories stamp it, and importing it pulls in nothing else."""

__version__ = "0.1.0"
