"""``python -m caylus_cli``: the ``caylus`` command without the installed entry point."""

from caylus_cli.app import PROGRAM, app

if __name__ == "__main__":
    app(prog_name=PROGRAM)
