#!/bin/sh
# onnx_upgrade.sh [N]: a ~100 MB ONNX model written at opset 11 by torch's legacy
# exporter (25 Linear+Softmax layers: every Softmax goes through the
# Softmax-13 adapter), raised to 18 and optimized, against the same bytes
# copied with dd+fsync and against reading it alone (--print): issue 25's
# "a 100 MB model's upgrade costs no more than reading it".  Medians of N
# (default 5) interleaved runs, with the load average.  The model is made once
# with the torch chroot (bench/out/mlp100m_o11.onnx):
#   python3 -c "import torch; m = torch.nn.Sequential(*[torch.nn.Sequential(
#     torch.nn.Linear(1024, 1024), torch.nn.Softmax(dim=1)) for _ in range(25)]).eval();
#     torch.onnx.export(m, (torch.randn(2, 1024),), 'bench/out/mlp100m_o11.onnx',
#     dynamo=False, opset_version=11, input_names=['x'], dynamic_axes={'x': {0: 'b'}})"
bin=${BIN:-build/yobx-export}
f=bench/out/mlp100m_o11.onnx
n=${1:-5}
[ -f $f ] || { echo "onnx_upgrade.sh: make $f first (see the header)" >&2; exit 2; }
printf 'report: false\n' >bench/out/up.yaml
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq $n); do
	s=$(date +%s%N); "$bin" $f -c bench/out/up.yaml -o bench/out/up.onnx --quiet; e=$(date +%s%N)
	echo "convert $(( (e - s) / 1000000 ))"
	s=$(date +%s%N); "$bin" $f --print >/dev/null; e=$(date +%s%N)
	echo "read $(( (e - s) / 1000000 ))"
	s=$(date +%s%N); dd if=$f of=bench/out/up.copy bs=16M conv=fsync status=none; e=$(date +%s%N)
	echo "copy $(( (e - s) / 1000000 ))"
done >bench/out/up.times
for k in convert read copy; do
	grep "^$k " bench/out/up.times | sort -k2 -n | awk -v k=$k '{ t[NR] = $2 } END { printf "%-8s median %d ms (of %d runs)\n", k, t[int((NR + 1) / 2)], NR }'
done
