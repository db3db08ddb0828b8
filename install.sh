#!/usr/bin/env bash
# Install irstats for development: the package with its test dependencies, and Debian's
# Chromium, which the report's browser test drives (headless, network off).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "install.sh: installing Debian's chromium package (for the report's browser test)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
    else
        echo "install.sh: Chromium is missing; install Debian's 'chromium' package (as root) for the browser test" >&2
    fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
