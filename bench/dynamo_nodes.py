"""dynamo_nodes.py: the python half of bench/dynamo_nodes.sh, run in the torch
2.14 chroot (torch.onnx, onnxscript and onnx_ir on PYTHONPATH).

    python3 bench/dynamo_nodes.py OPSET OURS_DIR THEIRS_DIR PT2...

For each PT2 it makes THEIRS_DIR/NAME.onnx with torch.onnx's dynamo exporter
(torch.export.load, then torch.onnx.export(ep, dynamo=True, optimize=True,
opset_version=OPSET); kept between runs, FORCE=1 remakes it; a failure leaves
THEIRS_DIR/NAME.fail with the error's last line), reads OURS_DIR/NAME.onnx
(made by the shell half; missing when our conversion failed) and prints one
table row: fixture, our nodes, theirs, ours minus theirs, and the op types
whose counts differ (+k: we have k more).

Nodes are counted as onnxruntime would run them: a call of a model-local
function counts as the nodes of its body, and the nodes of If/Loop/Scan
bodies count too, so that a model written with `functions:` compares with
dynamo's inlined graph; the Constant nodes of a function body are its
initializers (a function has no others) and do not count.  The last line sums the fixtures both converted.
"""
import collections
import os
import sys
import traceback


def op_counts(path):
    """Counter of (domain:)op_type over the graph, functions inlined."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    funcs = {(f.domain, f.name): f for f in m.functions}
    counts = collections.Counter()

    def walk(nodes, depth=0, body=False):
        for n in nodes:
            key = (n.domain, n.op_type)
            if key in funcs and depth < 16:
                walk(funcs[key].node, depth + 1, True)
                continue
            if body and n.op_type == 'Constant' and n.domain in ('', 'ai.onnx'):
                continue  # a function's initializers, folded when it is inlined
            counts[(n.domain + ':' if n.domain not in ('', 'ai.onnx') else '') + n.op_type] += 1
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g.node, depth, body)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for g in a.graphs:
                        walk(g.node, depth, body)

    walk(m.graph.node)
    return counts


def export(pt2, out, opset):
    import torch
    ep = torch.export.load(pt2)
    prog = torch.onnx.export(ep, dynamo=True, optimize=True, opset_version=opset,
                             verbose=False)
    prog.save(out)


def main():
    opset, ours_dir, theirs_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.makedirs(theirs_dir, exist_ok=True)
    force = os.environ.get('FORCE') == '1'
    total = [0, 0, 0]
    print('%-32s %6s %6s %6s  %s' % ('fixture', 'ours', 'dynamo', 'diff', 'op types that differ (+k: ours has k more)'))
    for pt2 in sys.argv[4:]:
        name = os.path.basename(pt2)[:-4]
        theirs = os.path.join(theirs_dir, name + '.onnx')
        fail = os.path.join(theirs_dir, name + '.fail')
        if force or not (os.path.exists(theirs) or os.path.exists(fail)):
            for f in (theirs, theirs + '.data', fail):
                if os.path.exists(f):
                    os.remove(f)
            try:
                # dynamo prints its progress on stdout: keep the table clean
                saved = os.dup(1)
                os.dup2(2, 1)
                try:
                    export(pt2, theirs, opset)
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
            except Exception as e:  # noqa: BLE001 - any export error is a table cell
                while e.__cause__ is not None:  # the exporter wraps the real reason
                    e = e.__cause__
                last = (traceback.format_exception_only(type(e), e)[-1].strip() or type(e).__name__)
                with open(fail, 'w') as f:
                    f.write(' '.join(last.split())[:200] + '\n')
        ours = os.path.join(ours_dir, name + '.onnx')
        a = op_counts(ours) if os.path.exists(ours) else None
        b = op_counts(theirs) if os.path.exists(theirs) else None
        na = sum(a.values()) if a is not None else None
        nb = sum(b.values()) if b is not None else None
        if a is not None and b is not None:
            ops = sorted(set(a) | set(b))
            diff = ['%s %+d' % (o, a[o] - b[o]) for o in ops if a[o] != b[o]]
            total[0] += na
            total[1] += nb
            total[2] += 1
            print('%-32s %6d %6d %+6d  %s' % (name, na, nb, na - nb, ', '.join(diff)), flush=True)
        else:
            why = ''
            if b is None and os.path.exists(fail):
                with open(fail) as f:
                    why = 'dynamo failed: ' + f.read().strip()
            elif a is None:
                why = 'ours failed'
            print('%-32s %6s %6s %6s  %s' % (name, na if na is not None else '-',
                                            nb if nb is not None else '-', '-', why[:150]), flush=True)
    print('%-32s %6d %6d %+6d  (%d fixtures both converted)' % ('total', total[0], total[1],
                                                               total[0] - total[1], total[2]))


if __name__ == '__main__':
    main()
