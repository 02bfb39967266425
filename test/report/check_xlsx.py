#!/usr/bin/python3
"""check_xlsx.py: reads the workbooks test/unit/test_report.c writes and
checks them with openpyxl (Debian python3-openpyxl).

    check_xlsx.py DIR     DIR holds report_sample.xlsx, report_empty.xlsx
                          and report_odd.xlsx

Prints one "ok - ..." or "FAIL - ..." line per check and exits 1 when any
check failed.  The expected values mirror fill_sample() in test_report.c;
change both together.  docs/report.md is the specification checked here.
"""
import datetime
import math
import os
import re
import sys
import zipfile

import openpyxl

SHEETS = {
    "overview": ["fact", "value", "note"],
    "extra": ["key", "value"],
    "stats": ["pattern", "removed", "added", "time_in", "iteration",
              "match_index", "instances"],
    "stats_agg": ["pattern", "removed", "added", "time_in", "instances",
                  "events"],
    "node_stats": ["op_type", "count", "flops"],
    "flops_by_op": ["op_type", "flops", "share", "count"],
    "symbolic_flops": ["op_type", "node_name", "symbolic_flops", "flops"],
    "unsupported": ["node", "target", "frame", "reason"],
}
# Columns that hold numbers only; "flops" columns may also hold "unknown".
NUMERIC = {
    "stats": {"removed", "added", "time_in", "iteration", "match_index",
              "instances"},
    "stats_agg": {"removed", "added", "time_in", "instances", "events"},
    "node_stats": {"count"},
    "flops_by_op": {"share", "count"},
}
FLOPS = {"node_stats": {"flops"}, "flops_by_op": {"flops"}, "symbolic_flops": {"flops"}}

passed = failed = 0


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what + (": " + str(detail) if detail else ""))


def rows(ws):
    """Data rows as dicts keyed by header, blank rows skipped."""
    head = [c.value for c in ws[1]]
    out = []
    for r in ws.iter_rows(min_row=2):
        if all(c.value is None for c in r):
            continue
        out.append({h: c for h, c in zip(head, r)})
    return out


def col_letter(n):
    return openpyxl.utils.get_column_letter(n)


def check_layout(wb, name, tag):
    """Header, bold, frozen pane, one table over the data, widths."""
    ws = wb[name]
    head = SHEETS[name]
    got = [c.value for c in ws[1]]
    check(got == head, "%s %s: headers" % (tag, name), got)
    check(all(c.font.b for c in ws[1]), "%s %s: bold header" % (tag, name))
    check(ws.freeze_panes == "A2", "%s %s: header row frozen" % (tag, name),
          ws.freeze_panes)
    ps = ws.page_setup
    check(ps.orientation == "landscape" and ps.fitToWidth in (1, None) and ps.fitToHeight == 0
          and ws.sheet_properties.pageSetUpPr.fitToPage and ws.print_title_rows in ("1:1", "$1:$1"),
          "%s %s: printed landscape, one page wide, header repeated" % (tag, name),
          (ps.orientation, ps.fitToWidth, ps.fitToHeight, ws.print_title_rows))
    n = len(rows(ws))
    want = "A1:%s%d" % (col_letter(len(head)), max(n, 1) + 1)
    tables = dict(ws.tables.items())
    check(list(tables.values()) == [want],
          "%s %s: one table over %s" % (tag, name, want), tables)
    for t in ws.tables.values():
        check(t.autoFilter is not None and t.headerRowCount != 0,
              "%s %s: table has a header row and an autofilter" % (tag, name))
    widths = [ws.column_dimensions[col_letter(i + 1)].width
              for i in range(len(head))]
    check(all(len(h) + 3 <= w <= 81 for h, w in zip(head, widths)),
          "%s %s: column widths fit the headers, capped at 80" % (tag, name),
          widths)
    for r in rows(ws):
        for h, c in r.items():
            if h in NUMERIC.get(name, ()):
                if c.data_type != "n":
                    check(False, "%s %s: %s is numeric" % (tag, name, h),
                          (c.coordinate, c.value, c.data_type))
                    return
            if h in FLOPS.get(name, ()):
                ok = c.data_type == "n" or c.value == "unknown"
                if not ok:
                    check(False, "%s %s: %s is a number or 'unknown'"
                          % (tag, name, h), (c.coordinate, c.value))
                    return
    check(True, "%s %s: number columns hold numeric cells" % (tag, name))


def charts(path):
    """The sheets with a chart, in workbook order (openpyxl drops charts on
    reading, so the zip's parts tell)."""
    z = zipfile.ZipFile(path)
    wbx = z.read("xl/workbook.xml").decode()
    names = re.findall(r'<sheet name="([^"]+)"', wbx)
    out = []
    for i, n in enumerate(names, 1):
        rels = "xl/worksheets/_rels/sheet%d.xml.rels" % i
        if rels in z.namelist() and "drawing" in z.read(rels).decode():
            d = re.search(r'Target="../drawings/(drawing\d+\.xml)"', z.read(rels).decode()).group(1)
            if "chart" in z.read("xl/drawings/_rels/%s.rels" % d).decode():
                out.append(n)
    return out


def check_sample(path):
    wb = openpyxl.load_workbook(path)
    check(wb.sheetnames == list(SHEETS), "sample: sheet names and order",
          wb.sheetnames)
    for name in wb.sheetnames:
        if name in SHEETS:
            check_layout(wb, name, "sample")
    check(wb.properties.created == datetime.datetime(2000, 1, 1),
          "sample: created is 2000-01-01 00:00:00", wb.properties.created)
    check(wb.active.title == "unsupported",
          "sample: opens on the unsupported sheet", wb.active.title)

    extra = {r["key"].value: r["value"] for r in rows(wb["extra"])}
    check(extra["opset"].data_type == "n" and extra["opset"].value == 18,
          "sample extra: opset is the number 18", extra["opset"].value)
    check(extra["conversion_seconds"].value == 1.25,
          "sample extra: conversion_seconds 1.25")
    check(extra["model"].data_type == "s" and
          extra["model"].value == "tiny_llm.pt2", "sample extra: model text")
    check(list(extra) == ["model", "opset", "conversion_seconds",
                          "torch_version", "nodes_in", "nodes_out"],
          "sample extra: insertion order", list(extra))

    stats = [{h: c.value for h, c in r.items()} for r in rows(wb["stats"])]
    check([s["pattern"] for s in stats] ==
          ["fuse_matmul_add", "remove_identity", "fuse_matmul_add",
           "constant_folding", "remove_identity", "cast_elim", "cast_cast"],
          "sample stats: insertion order")
    check(stats[2] == {"pattern": "fuse_matmul_add", "removed": 2, "added": 1,
                       "time_in": 0.0008, "iteration": 1, "match_index": 0,
                       "instances": 1}, "sample stats: row 3 values", stats[2])

    agg = [{h: c.value for h, c in r.items()} for r in rows(wb["stats_agg"])]
    keys = [(-a["removed"], a["pattern"]) for a in agg]
    check(keys == sorted(keys),
          "sample stats_agg: removed descending, then pattern", keys)
    check([a["pattern"] for a in agg] ==
          ["constant_folding", "cast_elim", "fuse_matmul_add",
           "remove_identity", "cast_cast"],
          "sample stats_agg: expected order (cast_elim/fuse_matmul_add tie)")
    want = {}
    for s in stats:
        w = want.setdefault(s["pattern"], {"pattern": s["pattern"], "removed": 0,
                                           "added": 0, "time_in": 0.0,
                                           "instances": 0, "events": 0})
        for k in ("removed", "added", "instances"):
            w[k] += s[k]
        w["time_in"] += s["time_in"]
        w["events"] += 1
    bad = [a for a in agg
           if any(a[k] != want[a["pattern"]][k]
                  for k in ("removed", "added", "instances", "events"))
           or not math.isclose(a["time_in"], want[a["pattern"]]["time_in"],
                               rel_tol=1e-12)]
    check(not bad and len(agg) == len(want),
          "sample stats_agg: sums of the stats sheet per pattern", bad)
    fma = [a for a in agg if a["pattern"] == "fuse_matmul_add"][0]
    check((fma["removed"], fma["added"], fma["instances"], fma["events"]) ==
          (6, 3, 3, 2) and math.isclose(fma["time_in"], 0.002),
          "sample stats_agg: fuse_matmul_add = 6, 3, 0.002 s, 3, 2", fma)

    ns = [{h: c.value for h, c in r.items()} for r in rows(wb["node_stats"])]
    keys = [(-n["count"], n["op_type"]) for n in ns]
    check(keys == sorted(keys), "sample node_stats: count descending, then op_type",
          keys)
    check([n["op_type"] for n in ns] ==
          ["Shape", "Add", "MatMul", "Relu", "com.microsoft:FusedMatMul"],
          "sample node_stats: expected order (Add/MatMul tie)")
    check(ns[2]["flops"] == 1.5e9 and ns[4]["flops"] == "unknown",
          "sample node_stats: MatMul flops 1.5e9, FusedMatMul unknown")

    fb = [{h: c.value for h, c in r.items()} for r in rows(wb["flops_by_op"])]
    check([(f["op_type"], f["flops"], f["count"]) for f in fb] ==
          [("MatMul", 1.5e9, 12), ("Add", 3e6, 12), ("Relu", 1e5, 4), ("Shape", 0, 30),
           ("com.microsoft:FusedMatMul", "unknown", 2)],
          "sample flops_by_op: largest first, unknown last", fb)
    total = 1.5e9 + 3e6 + 1e5
    check(math.isclose(fb[0]["share"], 1.5e9 / total) and fb[3]["share"] == 0
          and fb[4]["share"] is None, "sample flops_by_op: shares of the known total",
          [f["share"] for f in fb])

    ov = [{h: c.value for h, c in r.items()} for r in rows(wb["overview"])]
    check([o["value"] for o in ov if o["fact"] == "sheet"] == wb.sheetnames[1:],
          "sample overview: links every other sheet", ov)
    check(charts(path) == ["stats_agg", "node_stats", "flops_by_op"],
          "sample: a chart beside stats_agg, node_stats and flops_by_op", charts(path))

    sf = rows(wb["symbolic_flops"])
    check([r["node_name"].value for r in sf] ==
          ["matmul_1", "add_3", "shape_0", "fused_2", "relu_4"],
          "sample symbolic_flops: insertion order")
    check(sf[0]["symbolic_flops"].value == "2*batch*seq*64*64" and
          sf[0]["flops"].value == 1048576 and sf[0]["flops"].data_type == "n",
          "sample symbolic_flops: matmul_1 expression and value")
    check(sf[3]["symbolic_flops"].value == "unknown" and
          sf[3]["flops"].value == "unknown",
          "sample symbolic_flops: value -1 reads 'unknown'")
    check(sf[4]["symbolic_flops"].data_type == "n" and
          sf[4]["symbolic_flops"].value == 4096 and
          sf[2]["flops"].data_type == "n" and sf[2]["flops"].value == 0,
          "sample symbolic_flops: numeric expression is a number; 0 stays 0")

    un = [{h: c.value for h, c in r.items()} for r in rows(wb["unsupported"])]
    check(un == [{"node": "scatter_reduce_1", "target": "aten.scatter_reduce.two",
                  "frame": "model.py:42",
                  "reason": "reduce='mean' has no ONNX equivalent"},
                 {"node": "nonzero_7", "target": "aten.nonzero.default",
                  "frame": None, "reason": "data-dependent output shape"}],
          "sample unsupported: rows", un)


def check_empty(path):
    wb = openpyxl.load_workbook(path)
    names = [n for n in SHEETS if n != "unsupported"]
    check(wb.sheetnames == names, "empty: five sheets, no unsupported",
          wb.sheetnames)
    for name in names:
        check_layout(wb, name, "empty")
        if name != "overview":
            check(rows(wb[name]) == [], "empty %s: header row only" % name)
    ov = [r["fact"].value for r in rows(wb["overview"])]
    check(ov == ["sheet"] * (len(names) - 1), "empty overview: the links only", ov)
    check(charts(path) == [], "empty: no chart (no data)", charts(path))
    check(wb.active.title == "overview", "empty: opens on overview", wb.active.title)


def check_odd(path):
    wb = openpyxl.load_workbook(path)
    extra = {r["key"].value: r["value"].value for r in rows(wb["extra"])}
    check((extra["nan"], extra["inf"], extra["-inf"]) == ("nan", "inf", "-inf"),
          "odd: non-finite numbers are written as text")
    check(extra["bad_utf8"] == "a\ufffdb\ufffd",
          "odd: invalid UTF-8 bytes become U+FFFD", repr(extra["bad_utf8"]))
    check(extra["control"] in ("tab\there\x01", "tab\there_x0001_"),
          "odd: control characters survive (escaped)", repr(extra["control"]))
    check(extra["long"] == "x" * 32767, "odd: long text cut at 32767 characters",
          len(extra["long"]))
    check(extra["utf8"] == "h\u00e9llo \u2192 \U0001f642", "odd: UTF-8 text kept")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_xlsx.py DIR")
    d = sys.argv[1]
    for name, fn in (("report_sample.xlsx", check_sample),
                     ("report_empty.xlsx", check_empty),
                     ("report_odd.xlsx", check_odd)):
        path = os.path.join(d, name)
        try:
            fn(path)
        except Exception as e:  # a crash is one failed check, not a traceback
            check(False, "%s: readable" % name, "%s: %s" % (type(e).__name__, e))
    print("check_xlsx: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
