#!/bin/sh
# The viewer's browser tests (tests/viewer/test_browser.py) drive a headless Chromium:
# Debian's `chromium` package, found on PATH, or the executable named by CAYLUS_CHROMIUM.
# Install the package when it is missing, the same way on a fresh machine and in CI (no stdin:
# apt-get runs non-interactively; as root directly, otherwise through passwordless sudo).
set -eu
if [ -n "${CAYLUS_CHROMIUM:-}" ]; then
    if [ -x "$CAYLUS_CHROMIUM" ]; then exit 0; fi
    echo "CAYLUS_CHROMIUM=$CAYLUS_CHROMIUM is not an executable file" >&2
    exit 1
fi
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "no chromium on PATH and no apt-get to install it: install Chromium and set" \
        "CAYLUS_CHROMIUM to its executable" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
else
    echo "chromium is missing and installing it needs root: run" \
        "'apt-get install chromium' as root (or allow passwordless sudo)" >&2
    exit 1
fi
echo "installing Debian's chromium for the viewer's browser tests..." >&2
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1
