// Reads a Chrome trace-event file with DevTools' own trace model (npm
// @paulirish/trace_engine, installed by .ci/setup.sh) and prints, as JSON,
// what it made of each thread: its name, the number of slices and the depth
// of their tree. Used by export's TestChromeTraceEngine.
//
//	node trace_engine_check.mjs ENGINE_DIR TRACE.json | TRACE.json.gz
//
// A .gz file (svmc export -o NAME.json.gz) is decompressed as a stream and
// read an event per line, as svmc writes them: a large trace's JSON does
// not fit in one JavaScript string (V8 stops near 512 MiB).
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

async function readEvents(file) {
  if (!file.endsWith('.gz')) {
    return JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
  }
  const events = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file).pipe(zlib.createGunzip()), crlfDelay: Infinity });
  let inEvents = false;
  for await (let line of lines) {
    if (!inEvents) {
      inEvents = line.startsWith('{"traceEvents":[');
      continue;
    }
    if (line.startsWith(']')) break;
    if (line.endsWith(',')) line = line.slice(0, -1);
    events.push(JSON.parse(line));
  }
  return events;
}

const [engineDir, file] = process.argv.slice(2);
// The engine expects a browser's DOMRect.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) { Object.assign(this, { x, y, width, height }); }
};
const entry = path.join(engineDir, 'node_modules/@paulirish/trace_engine/models/trace/trace.js');
const Trace = await import(pathToFileURL(entry).href);
const t0 = Date.now();
const events = await readEvents(file);
const t1 = Date.now();
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const out = {};
for (const [pid, proc] of model.parsedTrace().data.Renderer.processes) {
  for (const [tid, th] of proc.threads) {
    out[tid] = { pid, name: th.name, slices: th.entries.length, depth: th.tree ? th.tree.maxDepth : -1 };
  }
}
if (process.env.SVMC_ENGINE_TIMES) {
  console.error(`read ${events.length} events in ${(t1 - t0) / 1000}s, model in ${(Date.now() - t1) / 1000}s, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB`);
}
console.log(JSON.stringify(out));
