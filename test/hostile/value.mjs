// value.mjs MODEL.onnx EXPECTED...: runs MODEL on x = [1, 1, 1] (float32)
// and exits 1 unless its first output is EXPECTED (test/hostile/run.sh).
import ort from 'onnxruntime-node';
const [,, path, ...want] = process.argv;
const s = await ort.InferenceSession.create(path);
const x = new ort.Tensor('float32', Float32Array.from([1, 1, 1]), [3]);
const r = await s.run({[s.inputNames[0]]: x});
const got = Array.from(r[s.outputNames[0]].data).join(' ');
if (got !== want.join(' ')) {
	console.log(`${path}: ${got}, want ${want.join(' ')}`);
	process.exit(1);
}
