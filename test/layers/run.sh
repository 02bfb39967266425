#!/bin/sh
# run.sh BUILD_DIR: the layer check (check.py) on the objects of BUILD_DIR,
# after proving on a made-up tree that it catches what it must: a cycle
# between two files, a call up a layer, an include of a private header
# from another layer, an include found through an -I path, and a header's
# macro or inline function that calls a layer above, and a header named
# after a file (b.h beside b.c) included by a file that does not call it.
# Ends with "layers: N passed, N failed".
b=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
mkdir -p "$t/lib/core" "$t/lib/ir" "$t/b/lib/core" "$t/b/lib/ir"
expect() {   # expect WHAT STATUS: check.py on the made-up tree exits STATUS
	( cd "$t" && python3 "$here/check.py" b >out 2>&1 ); rc=$?
	if [ $rc = "$2" ] && { [ "$2" = 0 ] || grep -q "$3" "$t/out"; }; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL layers self-test: $1 (exit $rc)"; sed 's/^/  /' "$t/out"
	fi
}
obj() {      # obj PATH CODE: compile CODE as the object of lib PATH
	printf '%s\n' "$2" >"$t/$1.c"
	cc -c -o "$t/b/$1.o" "$t/$1.c" || exit 1
}
obj lib/core/a 'void b(void); void a(void) { b(); }'
obj lib/core/b 'void b(void) {}'
expect "a clean tree" 0
obj lib/core/b 'void a(void); void b(void) { a(); }'
expect "a cycle between two files" 1 "^cycle: "
obj lib/core/b 'void c(void); void b(void) { c(); }'
obj lib/ir/c 'void c(void) {}'
expect "a call up a layer" 1 "^upward: lib/core/b"
obj lib/core/b 'void b(void) {}'
printf '#include "ir/private.h"\n' >>"$t/lib/core/a.c"
expect "an include of another layer's private header" 1 "^include: "
obj lib/core/a 'void b(void); void a(void) { b(); }'
printf '#include "c.h"\n' >>"$t/lib/core/a.c"
printf 'void c(void);\n' >"$t/lib/ir/c.h"
expect "an include without a slash found through an -I path" 1 "^include: lib/core/a.c includes c.h, not a file of its own folder"
obj lib/core/a 'void b(void); void a(void) { b(); }'
printf '#define CALL_C() c()\n' >"$t/lib/core/core.h"
expect "a macro in a header that calls a layer above" 1 "^header: lib/core/core.h (core) names c of lib/ir/c (ir)"
printf 'static inline void d(void) { void c(void); c(); }\n' >"$t/lib/core/core.h"
expect "an inline function in a header that calls a layer above" 1 "^header: lib/core/core.h (core) names c of lib/ir/c (ir)"
rm -f "$t/lib/core/core.h"
obj lib/core/a 'void a(void) {}'
obj lib/core/b 'void a(void); void b(void) { a(); }'
printf '#include "b.h"\n' >>"$t/lib/core/a.c"
printf 'void b(void);\n' >"$t/lib/core/b.h"
expect "an include of a header named after a file it does not call" 1 "^include: lib/core/a.c includes b.h, named after lib/core/b.c"
rm -f "$t/lib/core/b.h"
# the real tree
if python3 "$here/check.py" "$b"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "layers: $pass passed, $fail failed"
[ $fail = 0 ]
