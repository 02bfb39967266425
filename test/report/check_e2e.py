#!/usr/bin/python3
"""check_e2e.py: checks a workbook yobx-export wrote against the ONNX file
written with it (read with onnxwire.py, not with the converter's code) and
against the fixture's own sample input shapes (NAME.io/manifest.json).
docs/report.md is the specification.

    check_e2e.py ok MODEL.onnx MODEL.xlsx NAME.io (timed|zero)
        a converted model; `timed`: the time cells hold measured times
        (> 0 for the phases that ran), `zero`: every time cell is 0
    check_e2e.py failed MODEL.xlsx NODE:TARGET...
        a failed conversion: the unsupported sheet lists exactly these
    check_e2e.py functions MODEL.onnx MODEL.xlsx
        a model converted with `functions`: its functions sheet
    check_e2e.py JOB -- JOB ...
        several of those in one run (importing openpyxl takes longer than
        most checks)

Prints one "ok - ..." or "FAIL - ..." line per check, then the line
"check_e2e: N passed, N failed"; exits 1 on a failure. A job that raises
counts as one failed check, and the next job still runs.
"""
import json
import math
import os
import re
import sys
import traceback
from collections import Counter, OrderedDict

import openpyxl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnxwire  # noqa: E402

SHEETS = OrderedDict([
    ("overview", ["fact", "value", "note"]),
    ("extra", ["key", "value"]),
    ("stats", ["pattern", "removed", "added", "time_in", "iteration", "match_index", "instances"]),
    ("stats_agg", ["pattern", "removed", "added", "time_in", "instances", "events"]),
    ("node_stats", ["op_type", "count", "flops"]),
    ("flops_by_op", ["op_type", "flops", "share", "count"]),
    ("symbolic_flops", ["op_type", "node_name", "symbolic_flops", "flops"]),
    ("captures", ["strategy", "captured", "converted", "nodes", "capture_seconds",
                  "convert_seconds"]),
])
UNSUPPORTED = ["node", "target", "frame", "reason"]
FUNCTIONS = ["domain", "function", "class", "instances", "calls", "nodes", "inputs", "outputs",
             "attributes"]
PHASES = ["read", "lower", "optimize", "write", "report"]
HERE = os.path.dirname(os.path.abspath(__file__))

passed = failed = 0
label = ""


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - %s: %s" % (label, what))
    else:
        failed += 1
        print("FAIL - %s: %s%s" % (label, what, (": " + str(detail)) if detail != "" else ""))


def rows(ws):
    head = [c.value for c in ws[1]]
    out = []
    for r in ws.iter_rows(min_row=2, values_only=True):
        if all(v is None for v in r):
            continue
        out.append(dict(zip(head, r)))
    return out


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def option_keys():
    """The keys docs/options.md documents, in order."""
    doc = open(os.path.join(HERE, "..", "..", "docs", "options.md")).read()
    return re.findall(r"^## `([a-z_]+)`$", doc, re.M)


def check_layout(wb, sheets):
    check(wb.sheetnames == list(sheets), "sheets in order", wb.sheetnames)
    for name, head in sheets.items():
        if name not in wb.sheetnames:
            continue
        ws = wb[name]
        check([c.value for c in ws[1]] == head, name + " header", [c.value for c in ws[1]])
        check(name + "_table" in ws.tables, name + " is a table with autofilter", list(ws.tables))


def extra_dict(wb):
    kv = OrderedDict()
    for r in rows(wb["extra"]):
        kv[r["key"]] = r["value"]
    return kv


def check_extra_common(kv):
    for k in ["input", "output", "result", "container", "torch_version", "schema_version",
              "verifiers", "capture_strategy"]:
        check(isinstance(kv.get(k), str) and kv[k] != "", "extra has " + k, kv.get(k))
    check(kv.get("capture_strategy") == "torch.export (pt2)", "capture strategy")
    check(re.match(r"^(TRAINING \(training IR\)|ATEN \(core ATen\))", kv.get("verifiers", "")),
          "verifiers name the IR", kv.get("verifiers"))
    keys = option_keys()
    got = [k[len("option:"):] for k in kv if k.startswith("option:")]
    check(keys and got == keys, "one option row per documented key, in order", (got, keys))
    ops = [(k[len("aten_op:"):], v) for k, v in kv.items() if k.startswith("aten_op:")]
    check(ops and all(is_num(v) for _, v in ops), "aten_op rows are numbers")
    check(ops == sorted(ops, key=lambda x: (-x[1], x[0])), "aten_op rows sorted by count, then name")
    check(sum(v for _, v in ops) == kv.get("aten_nodes"), "aten_op counts sum to aten_nodes",
          (sum(v for _, v in ops), kv.get("aten_nodes")))


def check_times(kv, mode, ran):
    times = {p: kv.get("time_%s_seconds" % p) for p in PHASES}
    check(all(is_num(t) for t in times.values()), "time rows are numbers", times)
    if not all(is_num(t) for t in times.values()):
        return
    if mode == "zero":
        check(all(t == 0 for t in times.values()) and kv.get("time_total_seconds") == 0,
              "report_timings false: every time is 0", times)
    else:
        check(all(times[p] > 0 for p in ran), "measured times > 0 for " + ",".join(ran), times)
        check(math.isclose(kv.get("time_total_seconds", -1), sum(times.values()), rel_tol=1e-9),
              "time_total_seconds is the sum")


def sizes_of(graph, io_dir):
    """dim_param name -> size, from the fixture's case0 input shapes."""
    man = json.load(open(os.path.join(io_dir, "manifest.json")))
    shapes = [i["shape"] for i in man["cases"][0]["inputs"]]
    env = {}
    for name, shape in zip(graph.inputs, shapes):
        for d, s in zip(graph.types.get(name) or [], shape):
            if isinstance(d, str) and re.match(r"^[A-Za-z_]\w*$", d):
                env[d] = s
    return env


def value(dim, env):
    if isinstance(dim, int):
        return dim
    if isinstance(dim, str):
        return eval(dim, {"__builtins__": {}, "Max": max, "Min": min}, env)
    return None


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def shapes_of(g, env):
    """Concrete shapes of the values the file declares, plus the
    Transposes of known values (weights transposed for MatMul)."""
    sh = {}
    for name, dims in g.types.items():
        if dims is not None:
            sh[name] = [value(d, env) for d in dims]
    for name, t in g.inits.items():
        sh[name] = list(t.dims)
    for n in g.nodes:
        if n.op_type == "Transpose" and n.inputs[0] in sh and n.outputs[0] not in sh:
            x = sh[n.inputs[0]]
            perm = n.attrs.get("perm", list(range(len(x)))[::-1])
            sh[n.outputs[0]] = [x[p] for p in perm]
    return sh


def expected_flops(n, sh):
    """The formulas of docs/report.md for MatMul, Gemm and Conv, computed
    here from the file's shapes; None when a shape is missing."""
    a = sh.get(n.inputs[0])
    b = sh.get(n.inputs[1]) if len(n.inputs) > 1 else None
    out = sh.get(n.outputs[0])
    if n.op_type == "MatMul":
        if a and b and len(a) >= 2 and len(b) >= 2:
            batch = []
            ba, bb = a[:-2], b[:-2]
            r = max(len(ba), len(bb))
            ba, bb = [1] * (r - len(ba)) + ba, [1] * (r - len(bb)) + bb
            batch = [x if y == 1 else y for x, y in zip(ba, bb)]
            return 2 * prod(batch) * a[-2] * b[-1] * a[-1]
        k = a[-1] if a else b[-2] if b and len(b) >= 2 else None
        return 2 * prod(out) * k if out and k else None
    if n.op_type == "Gemm":
        if not a or not b:
            return None
        m, k = (a[1], a[0]) if n.attrs.get("transA") else (a[0], a[1])
        nn = b[0] if n.attrs.get("transB") else b[1]
        c = len(n.inputs) > 2 and n.inputs[2] != ""
        return 2 * m * nn * k + (m * nn if c else 0)
    if n.op_type == "Conv":
        if not b or not out:
            return None
        bias = len(n.inputs) > 2 and n.inputs[2] != ""
        return 2 * prod(b[1:]) * prod(out) + (prod(out) if bias else 0)
    return None


def check_ok(onnx_path, xlsx_path, io_dir, mode):
    g = onnxwire.read_model(onnx_path)
    wb = openpyxl.load_workbook(xlsx_path)
    check_layout(wb, SHEETS)
    check(wb.active.title == "overview", "opens on overview", wb.active.title)
    kv = extra_dict(wb)
    check_extra_common(kv)
    check(kv.get("result") == "converted", "result", kv.get("result"))
    check(kv.get("output") == onnx_path, "output names the ONNX file", kv.get("output"))
    check_times(kv, mode, ["read", "lower", "write", "report"])
    check(kv.get("onnx_nodes") == len(g.nodes), "onnx_nodes", (kv.get("onnx_nodes"), len(g.nodes)))
    check_captures(wb, kv, True)
    check_overview(wb, kv)
    check_flops_by_op(wb)
    check(kv.get("onnx_initializers") == len(g.inits), "onnx_initializers")
    check(kv.get("onnx_initializer_bytes") == sum(t.nbytes for t in g.inits.values()),
          "onnx_initializer_bytes", (kv.get("onnx_initializer_bytes"), sum(t.nbytes for t in g.inits.values())))
    check(kv.get("onnx_inputs") == len(g.inputs) and kv.get("onnx_outputs") == len(g.outputs),
          "onnx_inputs and onnx_outputs")

    # symbolic_flops: one row per node, in graph order, all known here
    sf = rows(wb["symbolic_flops"])
    check(len(sf) == len(g.nodes), "symbolic_flops has one row per node", (len(sf), len(g.nodes)))
    check([(r["op_type"], r["node_name"]) for r in sf] == [(n.op_type, n.name) for n in g.nodes],
          "symbolic_flops rows follow the graph (op_type, node_name)")
    check(all(is_num(r["flops"]) and r["flops"] >= 0 for r in sf), "no FLOPs cell is unknown or blank",
          [r for r in sf if not is_num(r["flops"])][:3])
    env = sizes_of(g, io_dir)
    bad = []
    for r in sf:
        e = r["symbolic_flops"]
        if is_num(e):
            ok = e == r["flops"]
        else:
            ok = isinstance(e, str) and set(re.findall(r"[A-Za-z_]\w*", e)) <= set(env) | {"Max", "Min"} \
                and value(e, env) == r["flops"]
        if not ok:
            bad.append((r["node_name"], e, r["flops"]))
    check(not bad, "each expression evaluated at the sample sizes equals its flops cell", bad[:3])
    symbolic = [r for r in sf if isinstance(r["symbolic_flops"], str)]
    if any(isinstance(d, str) for n in g.inputs for d in (g.types.get(n) or [])):
        check(symbolic, "dynamic dims give symbolic expressions")
        check(all(not re.search(r"\d+\*\d+", r["symbolic_flops"]) for r in symbolic),
              "static factors are multiplied together", [r["symbolic_flops"] for r in symbolic][:3])

    # MatMul / Gemm / Conv values against the formulas computed here
    sh = shapes_of(g, env)
    by_name = {r["node_name"]: r for r in sf}
    checked, wrong, missing = 0, [], []
    for n in g.nodes:
        if n.op_type not in ("MatMul", "Gemm", "Conv"):
            continue
        want = expected_flops(n, sh)
        if want is None:
            missing.append(n.name)
            continue
        checked += 1
        if by_name.get(n.name, {}).get("flops") != want:
            wrong.append((n.name, by_name.get(n.name, {}).get("flops"), want))
    check(checked > 0 and not missing, "MatMul/Gemm/Conv: every node checked (%d)" % checked, missing)
    check(not wrong, "MatMul/Gemm/Conv FLOPs equal the formulas", wrong[:3])

    # node_stats: counts per op type equal the file's, flops the sums
    ns = rows(wb["node_stats"])
    counts = Counter(n.op_type if n.domain in ("", "ai.onnx") else n.domain + ":" + n.op_type for n in g.nodes)
    check({r["op_type"]: r["count"] for r in ns} == dict(counts), "node_stats counts equal the ONNX file",
          ({r["op_type"]: r["count"] for r in ns}, dict(counts)))
    check([(r["op_type"], r["count"]) for r in ns] == sorted(((r["op_type"], r["count"]) for r in ns),
                                                              key=lambda x: (-x[1], x[0])),
          "node_stats sorted by count, then op_type")
    sums = Counter()
    for r in sf:
        sums[r["op_type"]] += r["flops"]
    check(all(r["flops"] == sums[r["op_type"]] for r in ns), "node_stats flops are the sums of symbolic_flops")
    check(kv.get("flops_total") == sum(r["flops"] for r in sf) and kv.get("flops_unknown_nodes") == 0,
          "flops_total", (kv.get("flops_total"), sum(r["flops"] for r in sf)))


OVERVIEW = [("input file", "input"), ("torch version", "torch_version"), ("container", "container"),
            ("capture strategy", "capture_strategy"), ("result", "result"), ("output", "output"),
            ("unsupported nodes", "unsupported_nodes"), ("ATen nodes", "aten_nodes"),
            ("ONNX nodes", "onnx_nodes"), ("weights", "onnx_initializers"),
            ("weight bytes", "onnx_initializer_bytes"), ("external data file", "onnx_external_data"),
            ("FLOPs at the sample sizes", "flops_total"), ("nodes of unknown FLOPs", "flops_unknown_nodes"),
            ("ONNX opset", "onnx_opset"), ("IR version", "onnx_ir_version")]


def check_overview(wb, kv):
    """The overview: extra's facts under their labels, the phase times in
    ms, and a link to every other sheet, in order."""
    ov = rows(wb["overview"])
    got = {r["fact"]: r["value"] for r in ov if r["fact"] != "sheet"}
    want = {label: kv[key] for label, key in OVERVIEW if key in kv}
    check(all(got.get(k) == v for k, v in want.items()), "overview facts equal extra's",
          [(k, got.get(k), v) for k, v in want.items() if got.get(k) != v])
    for p in PHASES + ["total"]:
        t = kv.get("time_%s_seconds" % p)
        check(t is not None and math.isclose(got.get("time %s (ms)" % p, -1), t * 1e3, rel_tol=1e-9,
                                             abs_tol=1e-12),
              "overview time %s in ms" % p, (got.get("time %s (ms)" % p), t))
    links = [r["value"] for r in ov if r["fact"] == "sheet"]
    check(links == wb.sheetnames[1:], "overview links every other sheet, in order", links)
    cells = [row[1] for row in wb["overview"].iter_rows(min_row=2) if row[0].value == "sheet"]
    check(all(c.hyperlink is not None and c.hyperlink.location == "'%s'!A1" % c.value for c in cells),
          "overview links go to A1 of their sheet", [c.hyperlink for c in cells])


def check_flops_by_op(wb):
    """flops_by_op: node_stats sorted by flops (unknown last), shares of the known total."""
    ns = {r["op_type"]: (r["count"], r["flops"]) for r in rows(wb["node_stats"])}
    fb = rows(wb["flops_by_op"])
    check({r["op_type"]: (r["count"], r["flops"]) for r in fb} == ns, "flops_by_op holds node_stats' rows")
    key = [(-(r["flops"] if is_num(r["flops"]) else -1), r["op_type"]) for r in fb]
    check(key == sorted(key), "flops_by_op sorted by flops, largest first")
    total = sum(r["flops"] for r in fb if is_num(r["flops"]))
    if total > 0:
        check(all(math.isclose(r["share"], r["flops"] / total) for r in fb if is_num(r["flops"])),
              "flops_by_op shares")


def check_captures(wb, kv, ok):
    """A .pt2 is a bundle of one: one captures row, the capture written (or not)."""
    cap = rows(wb["captures"])
    check(len(cap) == 1 and cap[0]["strategy"] == "torch.export (pt2)" and cap[0]["captured"] == "yes",
          "captures: one row, the .pt2 itself", cap)
    if not cap:
        return
    if ok:
        check(cap[0]["converted"] == "yes" and cap[0]["nodes"] == kv.get("onnx_nodes"),
              "captures: converted, with the written node count", cap[0])
    else:
        check(isinstance(cap[0]["converted"], str) and "no ONNX lowering" in cap[0]["converted"]
              and cap[0]["nodes"] is None, "captures: not converted, the first diagnostic", cap[0])
    check(cap[0]["capture_seconds"] is None, "captures: a .pt2 records no capture time", cap[0])


def check_failed(xlsx_path, want):
    wb = openpyxl.load_workbook(xlsx_path)
    sheets = OrderedDict(SHEETS)
    sheets["unsupported"] = UNSUPPORTED
    check_layout(wb, sheets)
    check(wb.active.title == "unsupported", "opens on unsupported", wb.active.title)
    kv = extra_dict(wb)
    check_extra_common(kv)
    check(kv.get("result", "").startswith("failed: %d node" % len(want)), "result", kv.get("result"))
    check(kv.get("unsupported_nodes") == len(want), "unsupported_nodes", kv.get("unsupported_nodes"))
    check("onnx_nodes" not in kv, "no ONNX counts")
    check_times(kv, "timed", ["read", "lower", "report"])
    check(kv.get("time_write_seconds") == 0 and kv.get("time_optimize_seconds") == 0,
          "phases that did not run are 0")
    un = rows(wb["unsupported"])
    check([(r["node"], r["target"]) for r in un] == [tuple(w.split(":", 1)) for w in want],
          "unsupported lists node and target", [(r["node"], r["target"]) for r in un])
    check(all(isinstance(r["frame"], str) and re.search(r"\.py:\d+", r["frame"]) for r in un),
          "unsupported frames name the user's file:line", [r["frame"] for r in un])
    check(all(r["reason"] == "no ONNX lowering" for r in un), "unsupported reasons",
          [r["reason"] for r in un])
    check(not rows(wb["node_stats"]) and not rows(wb["symbolic_flops"]), "no node_stats, no symbolic_flops")
    check_captures(wb, kv, False)
    check_overview(wb, kv)


def check_functions(onnx_path, xlsx_path):
    """The functions sheet (option `functions`) against the model's
    FunctionProtos: one row each, with its counts; every call in the main
    graph and in the bodies counted (for a model without nested calls in
    bodies shared away, calls == instances)."""
    g = onnxwire.read_model(onnx_path)
    wb = openpyxl.load_workbook(xlsx_path)
    sheets = OrderedDict()
    for name, head in SHEETS.items():   # functions goes before captures
        if name == "captures":
            sheets["functions"] = FUNCTIONS
        sheets[name] = head
    check_layout(wb, sheets)
    fr = [r for r in rows(wb["functions"]) if not str(r["function"]).startswith("(")]
    check(len(fr) == len(g.functions) > 0, "one row per FunctionProto", (len(fr), len(g.functions)))
    calls = Counter((n.domain, n.op_type) for n in g.nodes)
    for f in g.functions:
        calls.update((n.domain, n.op_type) for n in f.nodes)
    for r, f in zip(fr, g.functions):
        check((r["domain"], r["function"]) == (f.domain, f.name), "row names the function", (r, f.name))
        check(r["instances"] == calls[(f.domain, f.name)] == len(str(r["calls"]).split(", ")),
              "instances = calls = paths", (r, calls[(f.domain, f.name)]))
        check((r["nodes"], r["inputs"], r["outputs"], r["attributes"]) ==
              (len(f.nodes), len(f.inputs), len(f.outputs), len(f.attributes)),
              "nodes, inputs, outputs, attributes", r)


def jobs(argv):
    """The jobs of the command line: argv split at each "--" (a leading
    or doubled "--" makes no empty job)."""
    job = []
    for a in argv + ["--"]:
        if a != "--":
            job.append(a)
        elif job:
            yield job
            job = []


def valid(job):
    return ((len(job) >= 5 and job[0] == "ok") or (len(job) >= 2 and job[0] == "failed") or
            (len(job) == 3 and job[0] == "functions"))


def run_job(job):
    global label
    if job[0] == "ok":
        label = os.path.basename(job[2])
        check_ok(job[1], job[2], job[3], job[4])
    elif job[0] == "functions":
        label = os.path.basename(job[2])
        check_functions(job[1], job[2])
    else:
        label = os.path.basename(job[1])
        check_failed(job[1], job[2:])


def main():
    todo = list(jobs(sys.argv[1:]))
    if not todo or not all(valid(j) for j in todo):
        sys.stderr.write(__doc__)
        return 2
    for job in todo:
        try:
            run_job(job)
        except Exception as e:  # the next job's checks still count
            traceback.print_exc()
            check(False, "checks ran to the end", "%s: %s" % (type(e).__name__, e))
    print("check_e2e: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
