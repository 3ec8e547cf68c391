// Like trace_engine_check.mjs, for an export too large for one JavaScript
// string (Node refuses strings over 512 MiB): reads a Chrome trace-event
// file, gzip-compressed or not, one event per line as svmc writes it, and
// hands the events to DevTools' trace model; prints what it made of each
// thread and how many events it read.
//
//	node --max-old-space-size=12000 trace_engine_stream.mjs ENGINE_DIR TRACE.json[.gz]
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

const [engineDir, file] = process.argv.slice(2);
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) { Object.assign(this, { x, y, width, height }); }
};
const entry = path.join(engineDir, 'node_modules/@paulirish/trace_engine/models/trace/trace.js');
const Trace = await import(pathToFileURL(entry).href);
let input = fs.createReadStream(file);
if (file.endsWith('.gz')) input = input.pipe(zlib.createGunzip());
const events = [];
for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
  const t = line.endsWith(',') ? line.slice(0, -1) : line;
  if (t.startsWith('{"name"') || t.startsWith('{"ph"') || t.startsWith('{"cat"')) events.push(JSON.parse(t));
}
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const out = { events: events.length, threads: {} };
for (const [pid, proc] of model.parsedTrace().data.Renderer.processes) {
  for (const [tid, th] of proc.threads) {
    out.threads[tid] = { pid, name: th.name, slices: th.entries.length, depth: th.tree ? th.tree.maxDepth : -1 };
  }
}
console.log(JSON.stringify(out));
