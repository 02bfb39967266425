#!/bin/sh
# json_speed.sh [MB]: build bench/json_speed.c with the Makefile's flags
# against build/libyobx.a and run it.  Run from the repo root.
set -e
make -s -j2 build/libyobx.a
mkdir -p bench/out
libs=$(sed -n 's/^PKG_LIBS = //p' config.mk)
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -g -Wall -Wextra -Werror \
	-Ilib -o bench/out/json_speed bench/json_speed.c build/libyobx.a $libs -lm
exec bench/out/json_speed "$@"
