"""The docs site builds with ``mkdocs build --strict``, and the strict build can fail.

The whole site (``mkdocs.yml``, ``docs/``, the notebooks, the API reference) is built into a
temporary directory. Then a three-page site with the project's configuration checks that the
build can fail on what it promises to catch: it builds as written, and fails, naming each
fault, once its page links a missing page and a missing anchor and its API page renders a
public class and method without docstrings (``docs/hooks.py``).
Skipped only where mkdocs is not installed: CI installs the ``[docs]`` extra.

The README's links into ``docs/`` are checked without mkdocs: GitHub shows them as written.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 600
#: An RST simple table's rule line (``=====  =====``): Markdown shows it as raw text.
RST_RULE = re.compile(r"^\s*={3,}(\s+={3,})+\s*$", re.M)
#: The widest line of the home page's code blocks, in characters: the page's code column
#: shows about this many before it scrolls (the theme at a common laptop width).
HOME_CODE_COLUMNS = 72
#: Libraries a nav title or a page heading may name: a title names those its page's does.
LIBRARIES = ("RLlib", "Tianshou", "SuperSuit", "AgileRL", "Stable-Baselines3", "Minari")


def build(config: Path, site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )


def test_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    links = re.findall(r"\]\(((?:docs|notebooks)/[^)#]+)(?:#[^)]*)?\)", readme)
    assert links, "the README links the docs"
    for link in links:
        assert (ROOT / link).is_file(), f"README links {link}, which does not exist"
    assert "mkdocs serve" in readme, "a README command serves the docs locally"


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    before = sorted(p.name for p in ROOT.iterdir())
    proc = build(ROOT / "mkdocs.yml", site, ROOT)
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert sorted(p.name for p in ROOT.iterdir()) == before, "the build wrote into the repository"
    for page in (
        "index.html",
        "getting-started/index.html",
        "notebooks/quickstart/index.html",
        "reference/core/index.html",
        "rules/caylus/index.html",
    ):
        assert (site / page).is_file(), page
    # The commands and the first hour are included from the README, the API reference and the
    # notebooks are rendered.
    started = (site / "getting-started/index.html").read_text()
    assert "random,castle,town,economy" in started and "runs/datasets/bots" in started
    assert (
        "jp-OutputArea" in (site / "notebooks/quickstart/index.html").read_text()
    )  # saved outputs
    assert "make_vector" in (site / "reference/caylus_env/index.html").read_text()
    for page in (site / "reference").rglob("index.html"):
        assert not RST_RULE.search(page.read_text()), f"{page}: a raw RST table rule"


def small_config(root: Path) -> str:
    """``mkdocs.yml`` for a small site under ``root``: the project's configuration (theme,
    Markdown extensions, validation, hooks, mkdocstrings and its options) with its own docs
    directory, nav and package path, and without the notebook plugin (nothing to render)."""
    text = (ROOT / "mkdocs.yml").read_text()
    swaps = {
        "docs_dir: docs\n": f"docs_dir: {root / 'docs'}\n",
        "  - docs/hooks.py\n": f"  - {ROOT / 'docs' / 'hooks.py'}\n",
        'paths: ["."]': f'paths: ["{root}"]',
        'base_path: ["."]': f'base_path: ["{ROOT}"]',
        # the hook adds the repository's notebooks, which this nav does not list
        "  omitted_files: warn\n": "  omitted_files: info\n",
    }
    for old, new in swaps.items():
        assert old in text, f"mkdocs.yml no longer has {old!r}: update this test"
        text = text.replace(old, new)
    plugin = re.search(r"  - mkdocs-jupyter:\n(?:      .*\n)+", text)
    assert plugin, "mkdocs.yml no longer configures mkdocs-jupyter: update this test"
    text = text.replace(plugin.group(0), "")
    return text[: text.rindex("\nnav:\n")] + "\nnav:\n  - index.md\n  - other.md\n  - probe.md\n"


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    """Builds a three-page site with the project's configuration (`small_config`): the home
    page's text and a probe module ``docsprobe.py``, rendered by ``probe.md``, are given."""
    pytest.importorskip("mkdocs")
    root = tmp_path_factory.mktemp("small-site")
    (root / "mkdocs.yml").write_text(small_config(root))
    (root / "docs").mkdir()
    (root / "docs" / "other.md").write_text("# Other\n\n## A section\n")
    (root / "docs" / "probe.md").write_text("# Probe\n\n::: docsprobe\n")

    def run(page: str, probe: str) -> subprocess.CompletedProcess[str]:
        (root / "docs" / "index.md").write_text(page)
        (root / "docsprobe.py").write_text(probe)
        return build(root / "mkdocs.yml", root / "site", root)

    return run


GOOD_PAGE = "# Home\n\nSee [the other page](other.md#a-section).\n"
GOOD_PROBE = '"""A probe module."""\n\n\ndef documented() -> int:\n    """One."""\n    return 1\n'


def test_small_site_builds_when_nothing_is_wrong(small_site):
    proc = small_site(GOOD_PAGE, GOOD_PROBE)
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_broken_links_and_missing_docstrings_fail_the_build(small_site):
    """The same site with a link to a missing page, one to a missing anchor, and a public class
    and method without docstrings: the strict build fails, naming each."""
    page = GOOD_PAGE + "\nBroken: [a page](missing.md), [an anchor](other.md#no-such-section).\n"
    probe = GOOD_PROBE + "\n\nclass Probe:\n    def method(self) -> None:\n        pass\n"
    proc = small_site(page, probe)
    assert proc.returncode != 0
    for named in (
        "'missing.md'",
        "'#no-such-section'",
        "docsprobe.Probe (class) without a docstring",
        "docsprobe.Probe.method (function) without a docstring",
    ):
        assert named in proc.stderr, f"{named} not named:\n{proc.stderr[-4000:]}"


def _reference_modules() -> list[str]:
    """The modules the API reference renders (its pages' ``::: name`` blocks)."""
    names = []
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        names += re.findall(r"^::: *([\w.]+)", page.read_text(), re.M)
    return names


def _source(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_the_api_reference_renders_no_rst_table():
    """mkdocstrings renders docstrings as Markdown: an RST table's ``=====`` rules show as raw
    lines (the contract's module table did), so the docstrings of the modules the reference
    renders, and of their classes and functions, use Markdown tables or lists."""
    modules = _reference_modules()
    assert "caylus_env.core.contract" in modules
    for module in modules:
        tree = ast.parse(_source(module).read_text())
        nodes = [
            tree,
            *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef)),
        ]
        for node in nodes:
            doc = ast.get_docstring(node) or ""
            assert not RST_RULE.search(doc), (
                f"{module}: an RST table in {getattr(node, 'name', 'the module')}"
            )


def _nav_pages() -> list[tuple[str, str]]:
    """``(nav title, page)`` of every titled page of ``mkdocs.yml``'s nav."""
    nav = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (.+?): ([\w./-]+\.(?:md|ipynb))$", nav, re.M)


def test_a_nav_title_names_the_libraries_its_pages_heading_names():
    """The integrations page was titled "RLlib, Tianshou, SuperSuit" in the nav and
    "Tianshou, SuperSuit, AgileRL" on the page: a title and its heading name the same
    libraries."""
    pages = _nav_pages()
    assert ("Tianshou, SuperSuit, AgileRL", "integrations.md") in pages
    for title, page in pages:
        if not page.endswith(".md"):
            continue
        text = (ROOT / "docs" / page).read_text()
        heading = next(line[2:] for line in text.splitlines() if line.startswith("# "))
        named = {lib for lib in LIBRARIES if lib in title}
        assert named == {lib for lib in LIBRARIES if lib in heading}, (title, heading)


def test_the_home_pages_code_fits_its_column():
    """The home page's code blocks were cut on the right: each line fits
    `HOME_CODE_COLUMNS` characters."""
    text = (ROOT / "docs" / "index.md").read_text()
    blocks = re.findall(r"```\w*\n(.+?)```", text, re.S)
    assert blocks, "the home page shows code"
    for block in blocks:
        for line in block.splitlines():
            assert len(line) <= HOME_CODE_COLUMNS, line
