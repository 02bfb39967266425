#!/bin/sh
# signature.sh [NODES...]: what --signature costs (docs/signature.md, "Cost").
# Writes text graphs of NODES ATen nodes (default 1000 and 4000: four
# dynamic inputs, two of them sharing a symbol, and a chain of elementwise
# nodes and views over them), builds bench/signature.c against
# build/libyobx.a, and prints, per graph, the best and median time to build
# the converted model's signature and render its JSON.  The target is under
# 1 ms at 1,000 nodes.  Run from the repo root after make.
set -e
make -s -j2 build/libyobx.a
mkdir -p bench/out
libs=$(sed -n 's/^PKG_LIBS = //p' config.mk)
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -g -Wall -Wextra -Werror \
	-Ilib -Ibuild/gen -o bench/out/signature bench/signature.c build/libyobx.a $libs -lm
for n in ${*:-1000 4000}; do
	g=bench/out/signature-$n.txt
	awk -v n="$n" 'BEGIN {
		print "symbols\n  s0 in [1, 64]\n  s1 in [2, 512]"
		print "inputs"
		print "  user_input x: float32[s0,s1,16]\n  user_input y: float32[s0,s1,16]"
		print "  user_input m: float32[s0,1,16]\n  user_input k: int64[4]"
		print "graph main(x: float32[s0,s1,16], y: float32[s0,s1,16], m: float32[s0,1,16], k: int64[4]) {"
		prev = "x"
		for (i = 0; i < n; i++) {
			if (i % 3 == 0) printf "  v%d: float32[s0,s1,16] = aten.add.Tensor(self=%s, other=y)\n", i, prev
			else if (i % 3 == 1) printf "  v%d: float32[s0,s1,16] = aten.mul.Tensor(self=%s, other=m)\n", i, prev
			else printf "  v%d: float32[s0,s1,16] = aten.relu.default(self=%s)\n", i, prev
			prev = "v" i
		}
		printf "  return (%s)\n}\n", prev
	}' >"$g"
	bench/out/signature "$g" 1000
done
