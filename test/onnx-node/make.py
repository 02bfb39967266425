#!/usr/bin/env python3
"""make.py OUT.tar.gz SRC...: ONNX's backend node tests, packed for CI.

SRC is onnx/backend/test/data/node of onnx v1.22.0 (the last tag that stores
it), unpacked from a clone with
    git archive v1.22.0 onnx/backend/test/data/node | tar -x -C build/onnx-node-src
and this script runs where onnx and numpy are (the torch chroot):
    ../shared/tools/torch-env.sh run sid python3 test/onnx-node/make_rows.py build/onnx-node-rows
    ../shared/tools/torch-env.sh run sid python3 test/onnx-node/make_legacy.py build/onnx-node-legacy
    ../shared/tools/torch-env.sh run sid python3 test/onnx-node/make.py test/onnx-node/cases.tar.gz \\
        build/onnx-node-src/onnx/backend/test/data/node build/onnx-node-rows build/onnx-node-legacy
(make_rows.py adds one case per row of lib/onnx/upgrade.def, make_legacy.py real
models written by torch's legacy exporter at opsets 9 to 16, in the same layout.)

Each case NAME becomes NAME/model.onnx (as ONNX wrote it) and NAME/io/: the
manifest.json + .npy layout test/ort/run.mjs reads (test/models/README.md),
one case per test_data_set_K, and NAME/opset: the model's ai.onnx opset and its
other domains ("13 ai.onnx.ml:3").  A case whose inputs or outputs are not plain
tensors (sequences, optionals, maps) or whose dtype run.mjs cannot feed is
not packed: it is listed in skipped.txt (inside the archive) with the reason.
The archive is written deterministically (sorted names, zero times, gzip
without a name or time), so the same SRC gives the same bytes."""
import glob, gzip, io, json, os, sys, tarfile

import numpy as np
import onnx
from onnx import numpy_helper

DTYPES = {np.float32: 'float32', np.float64: 'float64', np.float16: 'float16',
          np.int64: 'int64', np.int32: 'int32', np.int16: 'int16', np.int8: 'int8',
          np.uint64: 'uint64', np.uint32: 'uint32', np.uint16: 'uint16', np.uint8: 'uint8',
          np.bool_: 'bool'}


def load(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    if t.data_type == 0 or not t.dims and not t.raw_data and t.data_type not in range(1, 24):
        raise ValueError('not a tensor')
    if t.data_type in (onnx.TensorProto.STRING, onnx.TensorProto.BFLOAT16) or t.data_type > 16:
        raise ValueError('element type %s' % onnx.TensorProto.DataType.Name(t.data_type))
    return numpy_helper.to_array(t)


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, np.array(a, order='C'), allow_pickle=False)   # (ascontiguousarray makes 0-d 1-d)
    return b.getvalue()


def case_files(d):
    """[(relative path, bytes)] for case folder d, or raises ValueError."""
    model = open(os.path.join(d, 'model.onnx'), 'rb').read()
    m = onnx.load_from_string(model)
    for v in list(m.graph.input) + list(m.graph.output):
        if not v.type.HasField('tensor_type'):
            raise ValueError('%s is a %s, not a tensor' % (v.name, v.type.WhichOneof('value')))
    files, cases = [('model.onnx', model)], []
    own = [o.version for o in m.opset_import if o.domain in ('', 'ai.onnx')]
    other = sorted('%s:%d' % (o.domain, o.version) for o in m.opset_import if o.domain not in ('', 'ai.onnx'))
    files.append(('opset', ('%d %s\n' % (own[0] if own else 0, ' '.join(other))).encode()))
    for k, sd in enumerate(sorted(glob.glob(os.path.join(d, 'test_data_set_*')))):
        c = {'name': 'case%d' % k, 'inputs': [], 'outputs': []}
        for kind, pre in (('inputs', 'input'), ('outputs', 'output')):
            n = len(glob.glob(os.path.join(sd, pre + '_*.pb')))
            for i in range(n):
                a = load(os.path.join(sd, '%s_%d.pb' % (pre, i)))
                dt = DTYPES.get(a.dtype.type)
                if dt is None:
                    raise ValueError('dtype %s' % a.dtype)
                f = 'case%d/%s_%d.npy' % (k, 'in' if pre == 'input' else 'out', i)
                files.append(('io/' + f, npy_bytes(a)))
                c[kind].append({'file': f, 'dtype': dt, 'shape': list(a.shape)})
        if len(c['inputs']) != len(m.graph.input) - len({i.name for i in m.graph.initializer}
                                                          & {v.name for v in m.graph.input}):
            raise ValueError('%d inputs stored for %d graph inputs' % (len(c['inputs']), len(m.graph.input)))
        cases.append(c)
    if not cases:
        raise ValueError('no test data')
    man = {'source': 'onnx v1.22.0 backend node test', 'cases': cases}
    files.append(('io/manifest.json', (json.dumps(man, indent=1, sort_keys=True) + '\n').encode()))
    return files


def main(out, srcs):
    entries, skipped = [], []
    for d in sorted(d for src in srcs for d in glob.glob(os.path.join(src, '*')) if os.path.isdir(d)):
        name = os.path.basename(d)
        try:
            for rel, data in case_files(d):
                entries.append((name + '/' + rel, data))
        except ValueError as e:
            skipped.append('%s\t%s' % (name, e))
    entries.append(('skipped.txt', ('\n'.join(skipped) + '\n').encode()))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode='w', format=tarfile.USTAR_FORMAT) as tar:
        for name, data in sorted(entries):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
            tar.addfile(ti, io.BytesIO(data))
    with open(out, 'wb') as f:
        with gzip.GzipFile(filename='', mode='wb', fileobj=f, mtime=0, compresslevel=9) as g:
            g.write(raw.getvalue())
    print('%d cases packed, %d skipped, %d bytes' % (len({e[0].split('/')[0] for e in entries}) - 1,
                                                     len(skipped), os.path.getsize(out)))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
