// Reads a Chrome trace-event file with DevTools' own trace model (npm
// @paulirish/trace_engine, installed by .ci/setup.sh) and prints, as JSON,
// what it made of each thread: its name, the number of slices and the depth
// of their tree. Used by export's TestChromeTraceEngine.
//
//	node trace_engine_check.mjs ENGINE_DIR TRACE.json
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [engineDir, file] = process.argv.slice(2);
// The engine expects a browser's DOMRect.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) { Object.assign(this, { x, y, width, height }); }
};
const entry = path.join(engineDir, 'node_modules/@paulirish/trace_engine/models/trace/trace.js');
const Trace = await import(pathToFileURL(entry).href);
const events = JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const out = {};
for (const [pid, proc] of model.parsedTrace().data.Renderer.processes) {
  for (const [tid, th] of proc.threads) {
    out[tid] = { pid, name: th.name, slices: th.entries.length, depth: th.tree ? th.tree.maxDepth : -1 };
  }
}
console.log(JSON.stringify(out));
