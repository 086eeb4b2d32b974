// Preloaded into the real server by bench/http-tail.js (`node --import ./bench/server-probe.mjs
// bin/run.js serve …`): records, inside the server, each HTTP request's time from its headers
// being parsed to its answer being handed to the socket, and every GC pause, and writes them as
// JSON to $BOURDON_PROBE_OUT when the process is told to stop. Nothing else is changed.
import fs from 'node:fs';
import http from 'node:http';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const out = process.env.BOURDON_PROBE_OUT;
const requests = [];
const gc = [];
let recording = false;

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function probeEmit(event, ...args) {
  if (event === 'request') {
    const [req, res] = args;
    const started = performance.now();
    // The bench says when the measured window starts and ends (header on a request).
    const mark = req.headers['x-probe'];
    if (mark === 'start') recording = true;
    if (mark === 'stop') recording = false;
    if (recording) res.once('finish', () => requests.push([started, performance.now() - started]));
  }
  return emit.call(this, event, ...args);
};

new PerformanceObserver((list) => {
  if (!recording) return;
  for (const entry of list.getEntries()) gc.push([entry.startTime, entry.duration, entry.detail?.kind ?? 0]);
}).observe({ entryTypes: ['gc'] });

process.once('SIGTERM', () => {
  if (out) fs.writeFileSync(out, JSON.stringify({ requests, gc }));
  process.exit(0);
});
