"""The README's two commands and CI stay in sync; the installed package matches the source.

The import boundaries between the layers are checked in ``tests/conformance/test_layers.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _test_command() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.+?)\n```", readme, re.S)
    commands = [b for b in blocks if "pytest" in b]
    assert len(commands) == 1, "the README must give exactly one test command"
    return commands[0].strip()


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _test_command() in ci


def test_readme_commands_pin_torch_through_the_constraints_file():
    readme = (ROOT / "README.md").read_text()
    for block in re.findall(r"```bash\n(.+?)\n```", readme, re.S):
        if "pip install" in block:
            assert "-c constraints.txt" in block
    assert (ROOT / "constraints.txt").read_text().strip() == "torch==2.13.0"


def test_installed_version_is_the_single_source():
    """pyproject reads the version from caylus_env/_version.py; the install metadata agrees."""
    from importlib.metadata import version

    import caylus_env
    from caylus_env._version import __version__

    assert caylus_env.__version__ is __version__
    assert version("caylus-env") == __version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'version = { attr = "caylus_env._version.__version__" }' in pyproject
    assert not re.search(r'(?m)^version\s*=\s*"', pyproject), "a second version in pyproject"


def test_caylus_entry_point_is_the_cli_package():
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "caylus"]
    assert script.value == "caylus_cli.app:app"
    from caylus_cli.app import app

    assert script.load() is app


def test_every_html_template_of_the_packages_is_package_data():
    """Templates are read with importlib.resources: a wheel without them cannot write pages."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    templates = [
        path
        for top in ("caylus_env", "caylus_cli", "agents", "training")
        for path in (ROOT / top).rglob("*.html")
        if "__pycache__" not in path.parts
    ]
    assert templates, "the scan finds no template"
    for path in templates:
        package = ".".join(path.parent.relative_to(ROOT).parts)
        assert path.name in declared.get(package, []), (
            f"{path.relative_to(ROOT)} is not in pyproject.toml's package-data for {package}"
        )
