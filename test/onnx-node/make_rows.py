#!/usr/bin/env python3
"""make_rows.py OUT: one case per row of lib/onnx/upgrade.def, in the layout of
ONNX's node tests (OUT/row_OP_VERSION/model.onnx, test_data_set_0/*.pb), so
make.py packs them with those: each model is written at an opset below the
row's version with the old form of the operator, its expected outputs
computed by onnx's reference evaluator at that opset.  test/onnx-node/run.sh
then checks that onnxruntime agrees as written, and that every upgrade of it
still matches.  Rows with no exact upgrade are made too: their refusal is
listed in refused.txt.

    ../shared/tools/torch-env.sh run sid python3 test/onnx-node/make_rows.py build/onnx-node-rows"""
import os, sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

rng = np.random.default_rng(7)
F = TensorProto.FLOAT


def x(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def bn(x, s, b, m, v, eps=1e-5):
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return [((x - m.reshape(sh)) / np.sqrt(v.reshape(sh) + eps) * s.reshape(sh) + b.reshape(sh)).astype(np.float32)]


def at_opset(opset, nodes, names):
    """expect= for a case: the same computation in its later form, by the
    reference evaluator at a later opset."""
    def run(*arrays):
        g = helper.make_graph(nodes, 'later', [helper.make_tensor_value_info(n, F, None) for n in names],
                              [helper.make_tensor_value_info('y', F, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
        return ReferenceEvaluator(m).run(None, dict(zip(names, arrays)))
    return run


def case(name, opset, nodes, inputs, outputs, extra_nodes=(), expect=None):
    """inputs: [(name, array)], outputs: [name] (types from the reference run,
    or from expect(*inputs) where onnx's evaluator lacks the old version)."""
    vin = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in inputs]
    vout = [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outputs]
    g = helper.make_graph(list(extra_nodes) + nodes, name, vin, vout)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)],
                          producer_name='make_rows.py')
    m.ir_version = 3 if opset < 8 else 4 if opset < 10 else 6 if opset < 12 else 7 if opset < 15 else 8
    if expect:
        res = expect(*[a for _, a in inputs])
    else:
        res = ReferenceEvaluator(m).run(None, dict(inputs))
    for v, r in zip(m.graph.output, res):
        v.CopyFrom(helper.make_tensor_value_info(v.name, helper.np_dtype_to_tensor_dtype(r.dtype), r.shape))
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, 'test_data_set_0'), exist_ok=True)
    onnx.save(m, os.path.join(d, 'model.onnx'))
    for i, (n, a) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(d, 'test_data_set_0', 'input_%d.pb' % i))
    for i, (n, r) in enumerate(zip(outputs, res)):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(r), n),
                         os.path.join(d, 'test_data_set_0', 'output_%d.pb' % i))


def node(op, ins, outs, **kw):
    return helper.make_node(op, ins, outs, **kw)


def rows():
    X4 = x(2, 3, 4, 5)
    case('row_BatchNormalization_9', 8, [node('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], spatial=1, epsilon=1e-5)],
         [('x', X4), ('s', x(3)), ('b', x(3)), ('m', x(3)), ('v', np.abs(x(3)) + 0.5)], ['y'], expect=bn)
    case('row_BatchNormalization_9_spatial0', 8, [node('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], spatial=0)],
         [('x', x(2, 3)), ('s', x(3)), ('b', x(3)), ('m', x(3)), ('v', np.abs(x(3)) + 0.5)], ['y'], expect=bn)
    case('row_BatchNormalization_14', 13, [node('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'])],
         [('x', X4), ('s', x(3)), ('b', x(3)), ('m', x(3)), ('v', np.abs(x(3)) + 0.5)], ['y'], expect=bn)
    case('row_Clip_11', 10, [node('Clip', ['x'], ['y'], min=-0.5, max=0.7)], [('x', X4)], ['y'])
    case('row_Clip_11_min', 10, [node('Clip', ['x'], ['y'], min=-0.5)], [('x', X4)], ['y'])
    case('row_DFT_20', 19, [node('DFT', ['x'], ['y'], axis=1, onesided=0)], [('x', x(2, 8, 1))], ['y'],
         expect=at_opset(20, [node('Constant', [], ['a'], value=helper.make_tensor('a', TensorProto.INT64, [], [1])),
                              node('DFT', ['x', '', 'a'], ['y'], onesided=0)], ['x']))
    case('row_Dropout_12', 11, [node('Dropout', ['x'], ['y'], ratio=0.3)], [('x', X4)], ['y'])
    case('row_GridSample_20', 19, [node('GridSample', ['x', 'g'], ['y'], mode='bilinear', align_corners=1)],
         [('x', x(1, 2, 4, 5)), ('g', np.tanh(x(1, 3, 3, 2)))], ['y'],
         expect=at_opset(20, [node('GridSample', ['x', 'g'], ['y'], mode='linear', align_corners=1)], ['x', 'g']))
    case('row_GroupNormalization_21', 20, [node('GroupNormalization', ['x', 's', 'b'], ['y'], num_groups=2)],
         [('x', x(2, 4, 3, 3)), ('s', x(2)), ('b', x(2))], ['y'])
    # before 13 these normalize the 2-D view [a0..ak-1] x [ak..an-1] (onnx's evaluator
    # applies 13's one-axis form to every version: the expectation is computed here)
    def flat2d(fn, axis):
        def run(a):
            k = axis % a.ndim
            v = a.reshape(int(np.prod(a.shape[:k])), -1)
            return [fn(v).reshape(a.shape).astype(np.float32)]
        return run

    def softmax(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def hardmax(v):
        return np.eye(v.shape[1], dtype=np.float32)[v.argmax(axis=1)]
    fns = {'Softmax': softmax, 'LogSoftmax': lambda v: np.log(softmax(v)), 'Hardmax': hardmax}
    for op in ('Softmax', 'LogSoftmax', 'Hardmax'):
        case('row_%s_13' % op, 12, [node(op, ['x'], ['y'], axis=1)], [('x', X4)], ['y'],
             expect=flat2d(fns[op], 1))
        case('row_%s_13_last' % op, 12, [node(op, ['x'], ['y'], axis=-1)], [('x', X4)], ['y'],
             expect=flat2d(fns[op], -1))
    case('row_Pad_11', 10, [node('Pad', ['x'], ['y'], pads=[0, 1, 2, 0, 0, 2, 1, 0], value=1.5)], [('x', X4)], ['y'])
    case('row_Pad_11_reflect', 10, [node('Pad', ['x'], ['y'], mode='reflect', pads=[0, 0, 1, 2, 0, 0, 2, 1])],
         [('x', X4)], ['y'])
    for op in ('ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean',
               'ReduceMin', 'ReduceProd', 'ReduceSumSquare'):
        a = np.abs(X4) + 0.1 if op == 'ReduceLogSum' else X4
        case('row_%s_18' % op, 17, [node(op, ['x'], ['y'], axes=[1, -1], keepdims=0)], [('x', a)], ['y'])
    case('row_ReduceSum_13', 12, [node('ReduceSum', ['x'], ['y'], axes=[0, 2])], [('x', X4)], ['y'])
    case('row_ReduceSum_13_all', 12, [node('ReduceSum', ['x'], ['y'], keepdims=0)], [('x', X4)], ['y'])
    # Resize-10 and Upsample: output coordinate x reads input x / scale (asymmetric), nearest
    # takes its floor; the evaluator runs them in Resize-13's words
    def resize11(mode, extra):
        return at_opset(13, [node('Resize', ['x', '', 's'], ['y'], mode=mode,
                                       coordinate_transformation_mode='asymmetric', **extra)], ['x', 's'])
    case('row_Resize_11', 10, [node('Resize', ['x', 's'], ['y'], mode='nearest')],
         [('x', x(1, 1, 3, 4)), ('s', np.array([1, 1, 2, 3], np.float32))], ['y'],
         expect=resize11('nearest', {'nearest_mode': 'floor'}))
    case('row_Resize_11_linear', 10, [node('Resize', ['x', 's'], ['y'], mode='linear')],
         [('x', x(1, 1, 3, 4)), ('s', np.array([1, 1, 2, 2], np.float32))], ['y'],
         expect=resize11('linear', {}))
    rois = np.array([[0, 0, 3, 3], [1, 0.5, 4, 2.5]], np.float32)
    case('row_RoiAlign_16', 15, [node('RoiAlign', ['x', 'r', 'b'], ['y'], output_height=2, output_width=2,
                                      sampling_ratio=2, spatial_scale=1.0)],
         [('x', x(1, 2, 5, 5)), ('r', rois), ('b', np.array([0, 0], np.int64))], ['y'],
         expect=at_opset(16, [node('RoiAlign', ['x', 'r', 'b'], ['y'], output_height=2, output_width=2,
                                   sampling_ratio=2, spatial_scale=1.0,
                                   coordinate_transformation_mode='output_half_pixel')], ['x', 'r', 'b']))
    case('row_Scatter_11', 10, [node('Scatter', ['x', 'i', 'u'], ['y'], axis=1)],
         [('x', x(3, 4)), ('i', np.array([[1, 0], [3, 2], [0, 1]], np.int64)), ('u', x(3, 2))], ['y'],
         expect=at_opset(11, [node('ScatterElements', ['x', 'i', 'u'], ['y'], axis=1)], ['x', 'i', 'u']))
    case('row_Slice_10', 9, [node('Slice', ['x'], ['y'], starts=[1, 0], ends=[3, -1], axes=[1, 3])],
         [('x', X4)], ['y'])
    case('row_Split_13', 12, [node('Split', ['x'], ['a', 'b'], axis=1, split=[1, 2])], [('x', X4)], ['a', 'b'])
    case('row_Split_18', 17, [node('Split', ['x'], ['a', 'b'], axis=2)], [('x', X4)], ['a', 'b'])
    case('row_Squeeze_13', 12, [node('Squeeze', ['x'], ['y'], axes=[1])], [('x', x(2, 1, 3))], ['y'])
    case('row_Unsqueeze_13', 12, [node('Unsqueeze', ['x'], ['y'], axes=[0, 3])], [('x', x(2, 3))], ['y'])
    case('row_TopK_10', 9, [node('TopK', ['x'], ['v', 'i'], k=2, axis=1)], [('x', X4)], ['v', 'i'])
    up = resize11('nearest', {'nearest_mode': 'floor'})
    case('row_Upsample_9', 8, [node('Upsample', ['x'], ['y'], mode='nearest', scales=[1.0, 1.0, 2.0, 3.0])],
         [('x', x(1, 1, 2, 3))], ['y'], expect=lambda a: up(a, np.array([1, 1, 2, 3], np.float32)))
    case('row_Upsample_10', 9, [node('Upsample', ['x', 's'], ['y'], mode='linear')],
         [('x', x(1, 1, 2, 3)), ('s', np.array([1, 1, 2, 2], np.float32))], ['y'],
         expect=resize11('linear', {}))
    # A subgraph: Squeeze-12 inside an If branch, raised with the graph.
    then = helper.make_graph([node('Squeeze', ['x'], ['t'], axes=[1])], 'then', [],
                             [helper.make_tensor_value_info('t', F, None)])
    other = helper.make_graph([node('Squeeze', ['x'], ['e'], axes=[2])], 'else', [],
                              [helper.make_tensor_value_info('e', F, None)])
    case('row_Squeeze_13_in_if', 12, [node('If', ['c'], ['y'], then_branch=then, else_branch=other)],
         [('x', x(2, 1, 1)), ('c', np.array(True))], ['y'])


if __name__ == '__main__':
    OUT = sys.argv[1]
    rows()
    print(len(os.listdir(OUT)), 'cases written')
