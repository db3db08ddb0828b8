#!/usr/bin/env bash
# Install irstats.
#
#   ./install.sh          irstats and what using it needs: the package from pip (the compiled
#                         reader is built with the machine's C compiler). No system package.
#   ./install.sh --test   also what only the tests need: the test extra (the peer tools the
#                         tests compare with: pytrec_eval, ir_measures, ranx, ppi_py,
#                         repro_eval …) and, as root on Debian, the system packages the tests
#                         drive: Chromium (the report's browser test), TeX (compiling the
#                         LaTeX irstats writes) and poppler (pdffonts on its figures).
set -euo pipefail
cd "$(dirname "$0")"

test_deps=false
for arg in "$@"; do
    case "$arg" in
        --test) test_deps=true ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $arg (use --test or --help)" >&2; exit 2 ;;
    esac
done

if ! $test_deps; then
    python3 -m pip install --quiet --disable-pip-version-check -e .
    exit 0
fi

# The system packages the tests need (Chromium with its recommended fonts; TeX and poppler lean).
browser=()
command -v chromium >/dev/null 2>&1 || browser=(chromium)
lean=()
command -v pdflatex >/dev/null 2>&1 || lean+=(texlive-latex-base texlive-latex-recommended texlive-latex-extra)
command -v pdffonts >/dev/null 2>&1 || lean+=(poppler-utils)
if [ $(( ${#browser[@]} + ${#lean[@]} )) -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "install.sh: installing Debian packages for the tests: ${browser[*]} ${lean[*]}" >&2
        apt-get update -qq
        if [ ${#browser[@]} -gt 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${browser[@]}" > /dev/null
        fi
        if [ ${#lean[@]} -gt 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${lean[@]}" > /dev/null
        fi
    else
        echo "install.sh: the tests need Debian's ${browser[*]} ${lean[*]} (install them as root)" >&2
    fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
