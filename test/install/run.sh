#!/bin/sh
# run.sh B MAKE...: `make install` and `make uninstall` (mk/install.mk), run
# from the repo root by `make check` with its build directory and $(MAKE).
# Installs into a temporary DESTDIR (with a space in it, for the quoting)
# under PREFIX=/opt/yobx, beside two files that belong to other programs,
# and checks
#  - exactly the expected files are there: bin/yobx-export, bin/yobx-capture,
#    share/man/man1/yobx-export.1, share/doc/yobx-export/README.md and
#    docs/*.md, the docs the same bytes as the sources;
#  - the installed binary runs and says the version of configure.ac's AC_INIT;
#  - the man page renders (groff with every warning on; mandoc -T lint when
#    installed, which .ci/deps.sh does), names that version, and has every
#    section, every flag of --help and every key of docs/options.md;
#  - make uninstall leaves the other programs' files and the empty shared
#    folders (bin/, share/man/man1/, share/doc/), and nothing else.
# Ends with the line "install: N passed, N failed".
b=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- make
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest="$tmp/stage dir" prefix=/opt/yobx
root=$dest$prefix
version=$(sed -n 's/^AC_INIT(\[yobx-export\], \[\([^]]*\)\])$/\1/p' configure.ac)
[ -n "$version" ] && ok || ko "no version in configure.ac's AC_INIT"

mkdir -p "$root/bin" "$root/share/man/man1"
echo other >"$root/bin/other-tool"
echo other >"$root/share/man/man1/other-tool.1"

if "$@" --no-print-directory install B="$b" DESTDIR="$dest" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	ok
else
	ko "make install failed:"; cat "$tmp/install.log"
fi

# Exactly these files, nowhere else under DESTDIR.
{
	echo "$root/bin/other-tool"
	echo "$root/share/man/man1/other-tool.1"
	echo "$root/bin/yobx-capture"
	echo "$root/bin/yobx-export"
	echo "$root/share/man/man1/yobx-export.1"
	echo "$root/share/doc/yobx-export/README.md"
	for f in docs/*.md; do echo "$root/share/doc/yobx-export/$f"; done
} | sort >"$tmp/want"
find "$dest" -type f | sort >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok; else ko "installed files differ:"; diff "$tmp/want" "$tmp/got"; fi
for f in README.md docs/*.md; do
	cmp -s "$f" "$root/share/doc/yobx-export/$f" && ok || ko "installed $f differs from the source"
done
[ -x "$root/bin/yobx-export" ] && ok || ko "bin/yobx-export is not executable"
[ -x "$root/bin/yobx-capture" ] && ok || ko "bin/yobx-capture is not executable"
cmp -s cmd/yobx_capture.py "$root/bin/yobx-capture" && ok || ko "bin/yobx-capture differs from cmd/yobx_capture.py"
head -n 1 "$root/bin/yobx-capture" | grep -q '^#!/usr/bin/env python3$' && ok || ko "bin/yobx-capture has no python3 #! line"

got=$("$root/bin/yobx-export" --version 2>&1)
[ "$got" = "yobx-export $version" ] && ok || ko "installed --version says '$got', want 'yobx-export $version'"

# The man page.
man=$root/share/man/man1/yobx-export.1
grep -q "^\.TH YOBX-EXPORT 1 \"[0-9-]*\" \"yobx-export $version\"" "$man" && ok ||
	ko "the man page's .TH does not name version $version"
if groff -man -Tutf8 -ww -z "$man" >"$tmp/groff.err" 2>&1 && [ ! -s "$tmp/groff.err" ]; then
	ok
else
	ko "groff warns about the man page:"; cat "$tmp/groff.err"
fi
if command -v mandoc >/dev/null 2>&1; then
	if mandoc -T lint -W warning "$man" >"$tmp/lint" 2>&1; then ok; else ko "mandoc -T lint:"; cat "$tmp/lint"; fi
else
	echo "install: mandoc not installed (.ci/deps.sh installs it): lint skipped"
fi
# Rendered as a reader sees it (man strips the bold when its output is no
# terminal; grotty -bcu does the same).
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$man" >"$tmp/page" 2>"$tmp/man.err"
else
	groff -man -Tascii -P-bcu "$man" >"$tmp/page" 2>"$tmp/man.err"
fi
[ -s "$tmp/page" ] && ok || { ko "the man page does not render:"; cat "$tmp/man.err"; }
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "FILE OPTIONS" "EXIT STATUS" FILES EXAMPLES; do
	grep -qx "$s" "$tmp/page" && ok || ko "the man page has no section $s"
done
# Every flag of the --help list is a tag of OPTIONS, every key of the
# options file one of FILE OPTIONS (tags sit at 7 spaces, bodies at 14).
"$root/bin/yobx-export" --help | sed -n 's/^  \(-[-a-z]*\).*/\1/p' >"$tmp/flags"
[ "$(wc -l <"$tmp/flags")" -ge 6 ] && ok || ko "fewer than 6 flags read from --help"
while read -r flag; do
	sed -n '/^OPTIONS$/,/^FILE OPTIONS$/p' "$tmp/page" | grep -Eq "^       (-[a-z], )?$flag( |\$)" && ok ||
		ko "the man page's OPTIONS has no $flag"
done <"$tmp/flags"
sed -n 's/^## `\(.*\)`$/\1/p' docs/options.md >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -ge 8 ] && ok || ko "fewer than 8 keys read from docs/options.md"
while read -r key; do
	sed -n '/^FILE OPTIONS$/,/^EXIT STATUS$/p' "$tmp/page" | grep -Eq "^       $key( |\$)" && ok ||
		ko "the man page's FILE OPTIONS has no key $key"
done <"$tmp/keys"

if "$@" --no-print-directory uninstall B="$b" DESTDIR="$dest" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1; then
	ok
else
	ko "make uninstall failed:"; cat "$tmp/uninstall.log"
fi
{
	for d in /opt "$prefix" "$prefix/bin" "$prefix/share" "$prefix/share/man" \
	         "$prefix/share/man/man1" "$prefix/share/doc"; do
		echo "$dest$d"
	done
	echo "$root/bin/other-tool"
	echo "$root/share/man/man1/other-tool.1"
} | sort >"$tmp/want"
find "$dest" -mindepth 1 | sort >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok; else ko "after uninstall:"; diff "$tmp/want" "$tmp/got"; fi

echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
