// onnxwire.mjs: just enough of the protobuf wire format to read a model's
// graph inputs and outputs and to wrap bfloat16 ones in Casts.
//
// onnxruntime-node 1.30 has no bfloat16 tensor type on the JavaScript side,
// so a model whose graph inputs or outputs are bfloat16 cannot be fed or read
// directly. wrapBfloat16() rewrites such a model so that each of those values
// crosses the boundary as float32: a bfloat16 input X becomes a float32 input
// plus Cast(to=BFLOAT16) producing X; a bfloat16 output Y gets a
// Cast(to=FLOAT) whose result becomes the graph output. The conversion is
// exact both ways (bfloat16 is the top half of a float32), so comparing the
// float32 values is comparing the bfloat16 ones.
//
// Field numbers are the ones in proto/onnx.proto.

export const ELEM = {
  FLOAT: 1, UINT8: 2, INT8: 3, UINT16: 4, INT16: 5, INT32: 6, INT64: 7,
  STRING: 8, BOOL: 9, FLOAT16: 10, DOUBLE: 11, UINT32: 12, UINT64: 13,
  BFLOAT16: 16,
};

const MODEL_GRAPH = 7;
const GRAPH_NODE = 1, GRAPH_INITIALIZER = 5, GRAPH_INPUT = 11, GRAPH_OUTPUT = 12;
const TENSOR_NAME = 8;
const VI_NAME = 1, VI_TYPE = 2;
const TYPE_TENSOR = 1;
const TT_ELEM = 1, TT_SHAPE = 2;
const SHAPE_DIM = 1, DIM_VALUE = 1, DIM_PARAM = 2;

// Reads a varint at buf[pos]; returns [value, next pos]. Values above 2^53
// lose precision, which only matters for int64 payloads we never read.
function readVarint(buf, pos) {
  let v = 0, mul = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('protobuf: truncated varint');
    const b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
    if (mul > 2 ** 70) throw new Error('protobuf: varint too long');
  }
}

// Splits a message into its fields: {num, wt, start, end, value} where
// start..end covers the whole field (tag included) and value is the varint
// (wt 0) or the payload subarray (wt 2).
export function fields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let tag;
    [tag, pos] = readVarint(buf, pos);
    const num = Math.floor(tag / 8), wt = tag % 8;
    let value;
    if (wt === 0) {
      [value, pos] = readVarint(buf, pos);
    } else if (wt === 1) {
      value = buf.subarray(pos, pos + 8); pos += 8;
    } else if (wt === 5) {
      value = buf.subarray(pos, pos + 4); pos += 4;
    } else if (wt === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      value = buf.subarray(pos, pos + len); pos += len;
    } else {
      throw new Error(`protobuf: unsupported wire type ${wt} (field ${num})`);
    }
    if (pos > buf.length) throw new Error(`protobuf: field ${num} runs past the end`);
    out.push({ num, wt, start, end: pos, value });
  }
  return out;
}

const first = (fs, num) => fs.find((f) => f.num === num);
const utf8 = (b) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');

function encodeVarint(n) {
  const bytes = [];
  while (n >= 0x80) { bytes.push((n % 128) | 0x80); n = Math.floor(n / 128); }
  bytes.push(n);
  return Buffer.from(bytes);
}

// Encoders for the field kinds we write: varint, and length-delimited
// (strings, bytes, sub-messages).
export const enc = {
  varint: (num, n) => Buffer.concat([encodeVarint(num * 8), encodeVarint(n)]),
  bytes: (num, b) => Buffer.concat([encodeVarint(num * 8 + 2), encodeVarint(b.length), b]),
  string: (num, s) => enc.bytes(num, Buffer.from(s, 'utf8')),
};

// NodeProto Cast(input) -> output with attribute to=elemType.
export function castNode(input, output, elemType) {
  const attr = Buffer.concat([enc.string(1, 'to'), enc.varint(3, elemType), enc.varint(20, 2)]);
  return Buffer.concat([enc.string(1, input), enc.string(2, output),
    enc.string(3, `${output}__cast`), enc.string(4, 'Cast'), enc.bytes(5, attr)]);
}

// ValueInfoProto for a tensor named `name` of elemType, with the shape
// given as TensorShapeProto bytes (or null for unknown rank).
export function tensorValueInfo(name, elemType, shapeBytes) {
  const parts = [enc.varint(TT_ELEM, elemType)];
  if (shapeBytes) parts.push(enc.bytes(TT_SHAPE, shapeBytes));
  const type = enc.bytes(TYPE_TENSOR, Buffer.concat(parts));
  return Buffer.concat([enc.string(VI_NAME, name), enc.bytes(VI_TYPE, type)]);
}

// Decodes a ValueInfoProto into {name, elemType, shape, shapeBytes}; elemType
// is 0 and shape null for non-tensor types.
function valueInfo(buf) {
  const fs = fields(buf);
  const nameF = first(fs, VI_NAME), typeF = first(fs, VI_TYPE);
  const vi = { name: nameF ? utf8(nameF.value) : '', elemType: 0, shape: null, shapeBytes: null };
  const tt = typeF && first(fields(typeF.value), TYPE_TENSOR);
  if (!tt) return vi;
  const tfs = fields(tt.value);
  const elem = first(tfs, TT_ELEM), shape = first(tfs, TT_SHAPE);
  vi.elemType = elem ? elem.value : 0;
  if (shape) {
    vi.shapeBytes = shape.value;
    vi.shape = fields(shape.value).filter((f) => f.num === SHAPE_DIM).map((d) => {
      const dfs = fields(d.value);
      const v = first(dfs, DIM_VALUE), p = first(dfs, DIM_PARAM);
      return v ? v.value : p ? utf8(p.value) : null;
    });
  }
  return vi;
}

function graphOf(model) {
  const g = first(fields(model), MODEL_GRAPH);
  if (!g) throw new Error('model has no graph');
  return g;
}

// The graph's inputs that are not initializers, and its outputs, in order:
// the values session.inputNames and session.outputNames list.
export function graphIo(model) {
  const gfs = fields(graphOf(model).value);
  const inits = new Set(gfs.filter((f) => f.num === GRAPH_INITIALIZER)
    .map((f) => first(fields(f.value), TENSOR_NAME)).filter(Boolean).map((f) => utf8(f.value)));
  const inputs = gfs.filter((f) => f.num === GRAPH_INPUT).map((f) => valueInfo(f.value))
    .filter((vi) => !inits.has(vi.name));
  const outputs = gfs.filter((f) => f.num === GRAPH_OUTPUT).map((f) => valueInfo(f.value));
  return { inputs, outputs };
}

// Returns a copy of the model whose bfloat16 graph inputs and outputs are
// float32 (see the top of this file), or null if it has none. Input names
// get the suffix __f32in, output names __f32out; callers go by position.
export function wrapBfloat16(model) {
  const mfs = fields(model);
  const g = graphOf(model);
  const gfs = fields(g.value);
  const { inputs } = graphIo(model);
  const feedable = new Set(inputs.map((vi) => vi.name));
  const head = [], tail = [], body = [];
  let changed = false, nodesSeen = false;
  for (const f of gfs) {
    const raw = g.value.subarray(f.start, f.end);
    if (f.num === GRAPH_NODE && !nodesSeen) {
      nodesSeen = true;
      body.push(head); // input Casts go before the first node
    }
    if ((f.num === GRAPH_INPUT || f.num === GRAPH_OUTPUT) && f.wt === 2) {
      const vi = valueInfo(f.value);
      const isInput = f.num === GRAPH_INPUT;
      if (vi.elemType === ELEM.BFLOAT16 && (!isInput || feedable.has(vi.name))) {
        changed = true;
        const outer = vi.name + (isInput ? '__f32in' : '__f32out');
        body.push(enc.bytes(f.num, tensorValueInfo(outer, ELEM.FLOAT, vi.shapeBytes)));
        if (isInput) head.push(enc.bytes(GRAPH_NODE, castNode(outer, vi.name, ELEM.BFLOAT16)));
        else tail.push(enc.bytes(GRAPH_NODE, castNode(vi.name, outer, ELEM.FLOAT)));
        continue;
      }
    }
    body.push(raw);
  }
  if (!changed) return null;
  if (!nodesSeen) body.unshift(head);
  const graph = Buffer.concat([...body.flat(), ...tail]);
  const parts = mfs.map((f) => (f.num === MODEL_GRAPH ? enc.bytes(MODEL_GRAPH, graph)
    : model.subarray(f.start, f.end)));
  return Buffer.concat(parts);
}
