"""Pieces shared by the project's HTML reports (a tournament's and a dataset's ``report.html``).

Both are single self-contained files (no script, no network): their tables are built here from
already formatted cells, escaped on the way, and their plots are embedded as base64 PNG, so a
report can be mailed or moved on its own. One stylesheet (`STYLE`) keeps them looking alike.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from pathlib import Path

STYLE = """\
  body { margin: 0 auto; max-width: 1100px; padding: 16px 20px 40px; background: #fbf8f1;
         color: #1d1d1f; font: 14px/1.45 "DejaVu Sans", Verdana, Arial, sans-serif; }
  h1 { font-size: 22px; margin: 8px 0 4px; }
  h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #b9b3a6; padding-bottom: 4px; }
  h3 { font-size: 15px; margin: 18px 0 6px; }
  p.note { color: #4a4a4f; max-width: 80ch; }
  p.warning { background: #fff1c7; border: 1px solid #e0c15a; padding: 6px 10px; border-radius: 4px; }
  table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
  th, td { border: 1px solid #d6d0c2; padding: 3px 9px; text-align: right; white-space: nowrap; }
  th { background: #efe9dc; }
  td:first-child, th:first-child { text-align: left; }
  td.text { text-align: left; white-space: normal; }
  figure { margin: 10px 0; }
  figure img { max-width: 100%; border: 1px solid #d6d0c2; }
  figcaption { color: #6b6b70; font-size: 12px; }
  nav a { margin-right: 12px; }
  code { background: #efe9dc; padding: 0 3px; border-radius: 3px; }"""
"""The reports' stylesheet, substituted into each template's ``<style>`` element."""


class Markup(str):
    """A cell that is already HTML (a link), kept as is by `table`."""


def escape_cells(cells: Sequence[object]) -> list[str]:
    return [c if isinstance(c, Markup) else html.escape(str(c)) for c in cells]


def table(header: Sequence[str], rows: Iterable[Sequence[object]], text_columns: int = 0) -> str:
    """An HTML table of already formatted cells (escaped here); the last ``text_columns``
    columns are left-aligned prose."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for cells in rows:
        k = len(cells)
        body.append(
            "<tr>"
            + "".join(
                f'<td class="text">{c}</td>' if i >= k - text_columns else f"<td>{c}</td>"
                for i, c in enumerate(escape_cells(cells))
            )
            + "</tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def link(href: str, text: str) -> Markup:
    """A relative link to a file beside the report (a game's replay page)."""
    return Markup(f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>')


def para(text: str, cls: str = "note") -> str:
    return f'<p class="{cls}">{html.escape(text)}</p>'


def png_figure(path: Path, caption: str) -> str:
    """The PNG at ``path`` as an embedded image with its caption (and file name)."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)} ({html.escape(Path(path).name)})</figcaption></figure>"
    )


__all__ = ["STYLE", "Markup", "escape_cells", "link", "para", "png_figure", "table"]
