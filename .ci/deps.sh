#!/bin/sh
# deps.sh: install what building and testing yobx-export needs on Debian 12.
# Safe to run again; installs only what is missing.
set -e
need=""
for p in build-essential pkg-config autoconf protobuf-c-compiler libprotobuf-c-dev \
         libyaml-dev libxlsxwriter-dev check zlib1g-dev clang nodejs npm python3-openpyxl; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
