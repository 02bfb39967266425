#!/bin/sh
# run.sh BINARY: the machine-readable diagnostics, end to end, run from the
# repo root.  For a failing conversion (an unsupported op at a node with a
# user frame; a file that is not a zip; an options file with an unknown
# key), a JSON document (--diagnostics=json and json:FILE) and a SARIF log
# (--sarif) that sarif_check.py validates against SARIF 2.1.0, with the
# codes, nodes, frames and exit status the text says; the text on stderr
# unchanged by the flags; the report's `unsupported` sheet filled from the
# diagnostics; and a SARIF log with no results for a conversion that works.
# Ends with the line "diag: N passed, N failed".
bin=${1:-build/yobx-export}
dir=$(dirname "$bin")/diag
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() {   # description python-expression-over-j (the JSON) and s (the SARIF)
	what=$1 expr=$2
	python3 - "$dir/$case.json" "$dir/$case.sarif" "$expr" <<'PY' && ok || ko "$case: $what"
import json, sys
j = json.load(open(sys.argv[1])) if sys.argv[1] != "-" else None
s = json.load(open(sys.argv[2]))
res = s["runs"][0]["results"]
d = j["diagnostics"] if j else None
ok = eval("(" + sys.argv[3] + ")")
if not ok:
    print(json.dumps(j, indent=1)[:3000]); print(json.dumps(res, indent=1)[:3000])
sys.exit(0 if ok else 1)
PY
}
strip_times() { sed -e 's/[0-9.]* s$/T s/' -e '/^  peak /d' "$1"; }   # times and memory vary

rm -rf "$dir" && mkdir -p "$dir"
python3 test/diag/make_cases.py "$dir" || { echo "FAIL: make_cases.py"; exit 1; }
python3 test/bad/make_bad.py "$dir/bad" >/dev/null || { echo "FAIL: make_bad.py"; exit 1; }
printf 'opset: 18\npases: [x]\n' >"$dir/unknown_key.yaml"

run() {   # case want-status input [args...]: text alone, then with json on stderr, then json:FILE + sarif
	case=$1 want=$2; shift 2
	"$bin" "$@" >"$dir/$case.plain.out" 2>"$dir/$case.plain.err"; got=$?
	[ "$got" = "$want" ] && ok || ko "$case: exit $got, want $want"
	"$bin" "$@" --diagnostics=json:"$dir/$case.json" --sarif "$dir/$case.sarif" >/dev/null 2>"$dir/$case.err"; got=$?
	[ "$got" = "$want" ] && ok || ko "$case with --sarif: exit $got, want $want"
	# the text is the same with or without the machine-readable forms
	[ "$(strip_times "$dir/$case.plain.err")" = "$(strip_times "$dir/$case.err")" ] && ok ||
		{ ko "$case: stderr differs with --sarif and json:FILE"; diff "$dir/$case.plain.err" "$dir/$case.err" | head; }
	[ ! -e "$dir/$case.sarif.tmp" ] && [ ! -e "$dir/$case.json.tmp" ] && ok || ko "$case: a .tmp file is left"
	python3 test/diag/sarif_check.py "$dir/$case.sarif" && ok || ko "$case: the SARIF log is not valid 2.1.0"
	# json on stderr: one document and nothing else (no summary)
	"$bin" "$@" --diagnostics=json >/dev/null 2>"$dir/$case.stderr.json"; got=$?
	[ "$got" = "$want" ] && ok || ko "$case with --diagnostics=json: exit $got, want $want"
	cmp -s "$dir/$case.stderr.json" "$dir/$case.json" && ok ||
		{ ko "$case: --diagnostics=json on stderr differs from json:FILE"; head -c 600 "$dir/$case.stderr.json"; }
}

# An unsupported op at a node with a frame: exit 1, YE0201 at the node,
# SARIF at the user's source line, the report's unsupported sheet.
u=$dir/unsupported.pt2
run unsupported 1 "$u" -o "$dir/unsupported.onnx"
grep -qF "node 'conv2d' (aten.frobnicate.default) at /src/test/models/make_fixtures.py:124 in forward: " "$dir/unsupported.err" && ok ||
	{ ko "unsupported: text lacks the node and its frame"; cat "$dir/unsupported.err"; }
check "json: the error's code, node, target, frame" \
	'j["exit_status"] == 1 and d[0]["code"] == "YE0201" and d[0]["name"] == "unsupported-op" and d[0]["severity"] == "error"
	 and d[0]["node"] == "conv2d" and d[0]["target"] == "aten.frobnicate.default" and d[0]["file"].endswith("unsupported.pt2")
	 and d[0]["frame"]["file"] == "/src/test/models/make_fixtures.py" and d[0]["frame"]["line"] == 124
	 and d[0]["frame"]["function"] == "forward" and d[0]["message"] == "no ONNX lowering"'
check "json: the summary is a note" 'd[1]["code"] == "YE0205" and d[1]["severity"] == "note" and len(d) == 2'
check "sarif: result at the frame, node as logical location" \
	'res[0]["ruleId"] == "YE0201" and res[0]["level"] == "error" and res[0]["message"]["text"] == "no ONNX lowering"
	 and res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "file:///src/test/models/make_fixtures.py"
	 and res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 124
	 and res[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "main_graph/conv2d"
	 and res[1]["level"] == "note" and res[1]["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 0
	 and s["runs"][0]["artifacts"][0]["location"]["uri"].endswith("unsupported.pt2")
	 and s["runs"][0]["invocations"][0] == {"executionSuccessful": False, "exitCode": 1}'
check "sarif: one rule per diag.def row, errors at level error" \
	'len({r["id"] for r in s["runs"][0]["tool"]["driver"]["rules"]}) == len(s["runs"][0]["tool"]["driver"]["rules"]) > 30
	 and s["runs"][0]["tool"]["driver"]["rules"][res[0]["ruleIndex"]]["defaultConfiguration"]["level"] == "error"'
# the unsupported sheet comes from the diagnostic: node, target, frame, reason
python3 - "$dir/unsupported.xlsx" <<'PY' && ok || ko "unsupported: the report's sheet lacks the node, target, frame or reason"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
book = z.read("xl/workbook.xml").decode()
names = re.findall(r'<sheet name="([^"]+)"', book)
sheet = z.read("xl/worksheets/sheet%d.xml" % (names.index("unsupported") + 1)).decode()
strings = z.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in z.namelist() else ""
text = sheet + strings
sys.exit(0 if all(w in text for w in ("conv2d", "aten.frobnicate.default", "make_fixtures.py:124 in forward", "no ONNX lowering")) else 1)
PY

# A model whose interface differs from the golden signature: exit 1, the
# model written, one YE0901 per difference (kind in brackets) located at the
# golden file; a kind signature_allow lists is a note instead.
run signature_changed 1 test/models/torch-2.14/sig_contract.pt2 -o "$dir/signature_changed.onnx" \
	--expect-signature test/golden/signature/derived_dyn.json
check "signature-changed: one error per difference, at the golden file" \
	'j["exit_status"] == 1 and len(d) == 14 and all(x["code"] == "YE0901" and x["name"] == "signature-changed"
	 and x["file"] == "test/golden/signature/derived_dyn.json" and x["message"].endswith("]") for x in d)
	 and d[0]["message"] == "input \x27x\x27: was rank 2, now 3 [rank]"
	 and len(res) == 14 and res[0]["ruleId"] == "YE0901"
	 and res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("derived_dyn.json")'
[ -s "$dir/signature_changed.onnx" ] && ok || ko "signature_changed: the model is not written"
printf 'signature_allow: [rank, added, renamed, fixed, size, symbol, range]\n' >"$dir/allow.yaml"
run signature_allowed 0 test/models/torch-2.14/sig_contract.pt2 -c "$dir/allow.yaml" -o "$dir/signature_allowed.onnx" \
	--expect-signature test/golden/signature/derived_dyn.json
check "signature-change-allowed: notes, exit 0" \
	'j["exit_status"] == 0 and len(d) == 14 and all(x["code"] == "YE0902" and x["severity"] == "note" for x in d)
	 and d[0]["message"] == "input \x27x\x27: was rank 2, now 3 [rank, allowed]"'

# Not a zip: exit 2, YE0301 at the dump, SARIF at the dump.
run notzip 2 "$dir/bad/notzip.pt2" -o "$dir/notzip.onnx"
check "json and sarif: not-zip at the dump" \
	'j["exit_status"] == 2 and [x["code"] for x in d] == ["YE0301"] and d[0]["file"].endswith("notzip.pt2") and d[0]["node"] is None
	 and res[0]["ruleId"] == "YE0301" and res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 0'

# A damaged JSON entry: the file and the entry apart, line and column.
run bad_json 2 "$dir/bad/bad_json.pt2" -o "$dir/bad_json.onnx"
check "json: json-syntax names the dump and its entry" \
	'd[0]["code"] == "YE0307" and d[0]["file"].endswith("bad_json.pt2") and d[0]["entry"].endswith("models/model.json")
	 and d[0]["line"] >= 1 and d[0]["column"] >= 1'

# An unknown option key: the SARIF result points at the options file's line.
run unknown_key 2 test/models/torch-2.14/cnn.pt2 -c "$dir/unknown_key.yaml" -o "$dir/unknown_key.onnx"
check "options-value at the options file's line and column" \
	'd[0]["code"] == "YE0102" and d[0]["line"] == 2 and d[0]["column"] == 1
	 and res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("unknown_key.yaml")
	 and res[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 1}'

# custom_ops: an unmapped custom operator (exit 1, YE0209, its arguments and
# an entry to fill in); an entry naming an argument the node lacks (exit 2,
# at the name's line and column in the options file); a name used before
# the node defining it (exit 2, at its line and column).
run custom_unmapped 1 test/models/torch-2.14/op_custom_domain.pt2 -o "$dir/custom_unmapped.onnx"
check "custom-op-unmapped: the arguments and an entry to fill in" \
	'j["exit_status"] == 1 and [x["code"] for x in d] == ["YE0209", "YE0209", "YE0205"]
	 and d[0]["name"] == "custom-op-unmapped" and d[0]["target"] == "yobx.scaled_tanh.default"
	 and "its arguments: x: Tensor float32[2,4], alpha: float = 0.5, bias: Tensor float32[4]." in d[0]["message"]
	 and d[0]["message"].endswith("custom_ops:\n  yobx.scaled_tanh.default:\n    domain: yobx\n    op_type: ScaledTanh\n"
	                              "    inputs: [x, bias]\n    attributes: {alpha: alpha}")
	 and res[0]["ruleId"] == "YE0209"'
grep -qF "custom_ops:" "$dir/custom_unmapped.plain.err" && grep -qF "    op_type: ScaledTanh" "$dir/custom_unmapped.plain.err" && ok ||
	{ ko "custom_unmapped: the text lacks the entry"; cat "$dir/custom_unmapped.plain.err"; }
printf 'custom_ops:\n  yobx.scaled_tanh.default:\n    domain: com.example\n    op_type: ScaledTanh\n    inputs: [x, bais]\n' >"$dir/custom_arg.yaml"
run custom_arg 2 test/models/torch-2.14/op_custom_domain.pt2 -c "$dir/custom_arg.yaml" -o "$dir/custom_arg.onnx"
check "custom_ops: an argument the node lacks, at its line and column" \
	'[x["code"] for x in d] == ["YE0102"] and d[0]["line"] == 5 and d[0]["column"] == 17
	 and d[0]["file"].endswith("custom_arg.yaml") and "has no argument \x27bais\x27" in d[0]["message"]
	 and res[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 17}'
printf 'custom_ops:\n  yobx.scaled_tanh.default:\n    nodes:\n      - {op_type: Mul, inputs: [t, x], outputs: [y]}\n      - {op_type: Tanh, inputs: [x], outputs: [t]}\n    outputs: [y]\n' >"$dir/custom_order.yaml"
run custom_order 2 test/models/torch-2.14/op_custom_domain.pt2 -c "$dir/custom_order.yaml" -o "$dir/custom_order.onnx"
check "custom_ops: a name used before it is defined, at its line and column" \
	'[x["code"] for x in d] == ["YE0102"] and d[0]["line"] == 4 and d[0]["column"] == 33
	 and "node 0 uses \x27t\x27 before node 1 defines it" in d[0]["message"]'

# A conversion that works: SARIF and JSON written, no results, exit 0.
run ok 0 test/models/torch-2.14/cnn.pt2 -o "$dir/ok.onnx"
check "a clean run: empty results, exit 0" \
	'j == {"version": 1, "diagnostics": [], "exit_status": 0} and res == []
	 and s["runs"][0]["invocations"][0]["executionSuccessful"] is True'

# A SARIF file that cannot be written is an error of its own (exit 2).
"$bin" test/models/torch-2.14/cnn.pt2 -o "$dir/w.onnx" --sarif /nonexistent/dir/x.sarif >/dev/null 2>"$dir/w.err"; got=$?
[ "$got" = 2 ] && grep -qF "/nonexistent/dir/x.sarif: cannot write: " "$dir/w.err" && ok ||
	{ ko "unwritable --sarif: exit $got"; cat "$dir/w.err"; }
"$bin" test/models/torch-2.14/cnn.pt2 -o "$dir/w.onnx" --diagnostics=yaml >/dev/null 2>&1; got=$?
[ "$got" = 2 ] && ok || ko "--diagnostics=yaml: exit $got, want 2"

echo "diag: $pass passed, $fail failed"
[ "$fail" = 0 ]
