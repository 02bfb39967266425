#!/bin/sh
# deps.sh: install what building and testing yobx-export needs on Debian 12:
# the Debian packages, then onnxruntime-node (npm) for the tests.
# Safe to run again; installs only what is missing.
set -e
cd "$(dirname "$0")/.."
need=""
for p in build-essential pkg-config autoconf protobuf-c-compiler libprotobuf-c-dev \
         libyaml-dev libxlsxwriter-dev check zlib1g-dev clang python3 python3-openpyxl \
         groff-base mandoc; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
# LibreOffice (headless Calc) and poppler print the report to PDF for
# test/report/lo.sh; without recommends they are about 110 packages (3 min
# on a loaded machine, download included).
lo=""
for p in libreoffice-calc-nogui poppler-utils; do
	dpkg -s "$p" >/dev/null 2>&1 || lo="$lo $p"
done
if [ -n "$need$lo" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	[ -z "$need" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
	[ -z "$lo" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $lo >/dev/null
fi
# onnxruntime-node ships its native library in the package: no install script needed.
[ -d node_modules/onnxruntime-node ] || npm ci --ignore-scripts --no-audit --no-fund >/dev/null
