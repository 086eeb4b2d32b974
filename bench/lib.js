// Shared by the bench scripts: flag parsing, a scratch copy of a benchmark library, and starting
// the real HTTP server.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateLibrary } from './generate.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `--name value` from argv, or the fallback. */
export function flagReader(argv = process.argv.slice(2)) {
  return (name, fallback) => {
    const index = argv.indexOf(name);
    return index >= 0 && argv[index + 1] !== undefined ? argv[index + 1] : fallback;
  };
}

/**
 * The command and arguments that run node on `script` (its path, then its arguments):
 * `launch.nodeArgs` go to node before the script (a `--import` probe); `launch.wrap` is a command
 * line that runs node (`['taskset', '-c', '0']`).
 */
function nodeCommand({ nodeArgs = [], wrap = [] }, script) {
  const node = [process.execPath, ...nodeArgs, ...script];
  return wrap.length ? [wrap[0], [...wrap.slice(1), ...node]] : [node[0], node.slice(1)];
}

/**
 * Starts `bourdon serve --transport http` on 127.0.0.1 (a free port), with any further serve
 * flags (e.g. `--peers-config`), and resolves once its startup line names the URL:
 * `{ child, url, startup, stderr() }`. `launch`: as nodeCommand takes it.
 */
export function startHttpServer(library, env, extraArgs = [], launch = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      ...nodeCommand(launch, [
        process.env.BOURDON_BENCH_BIN ?? path.join(ROOT, 'bin', 'run.js'),
        'serve',
        '--transport',
        'http',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--library',
        library,
        ...extraArgs,
      ]),
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
      if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        const startup = stderr
          .trim()
          .split('\n')
          .find((line) => line.includes('listening on'));
        resolve({ child, url, startup, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
}

/**
 * Starts bench/echo-server.js (the SDK's floor: node:http, the SDK's stateless handler and 15
 * echo tools, nothing of bourdon) and resolves once it names its URL: `{ child, url }`. `env`
 * and `launch` as for startHttpServer.
 */
export function startEchoServer(env = process.env, launch = {}) {
  const child = spawn(...nodeCommand(launch, [path.join(ROOT, 'bench', 'echo-server.js')]), {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const url = /listening on (\S+)/.exec(text)?.[1];
      if (url) resolve({ child, url });
    });
    child.on('exit', (code) => reject(new Error(`echo server exited ${code}: ${text}`)));
  });
}

/**
 * A scratch copy of the benchmark library of `agents` agents at the schema maxima (generated
 * into .bench-data/library-<agents> the first time) under a new temp folder named `prefix…`,
 * with an empty home beside it and that home's member registry (dist/, so after a build):
 * `{ scratch, library, home, registry, remove() }`.
 */
export async function scratchLibrary(agents, prefix) {
  const source = path.join(ROOT, '.bench-data', `library-${agents}`);
  if (!fs.existsSync(path.join(source, 'agents'))) generateLibrary(source, { agents });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const library = path.join(scratch, 'library');
  fs.cpSync(source, library, { recursive: true });
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home);
  const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));
  return {
    scratch,
    library,
    home,
    registry: new FederationRegistry(path.join(home, 'federation.yaml')),
    remove: () => fs.rmSync(scratch, { recursive: true, force: true }),
  };
}

/**
 * One stateless tools/call to the HTTP server at `url` as the member holding `token`: the tool's
 * JSON payload (from a JSON or an event-stream answer); throws when the call fails or is an error.
 */
export async function callTool(url, token, name, args) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  const json = text.trim().startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data:'))
        ?.slice(5);
  const result = response.ok && json ? JSON.parse(json).result : null;
  if (!result || result.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
  return JSON.parse(result.content[0].text);
}

/** A 2026-07-28 `tools/call` body (one POST, one answer; no handshake). */
export function mcpCallBody(name, args) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The headers of that call, with the member's bearer token when there is one. */
export function mcpCallHeaders(name, token) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/**
 * `tokens.length` clients, one node:http keep-alive connection each (client i sends tokens[i]),
 * each connected and answered once before the clock starts, then calling back to back for
 * `seconds`: p50, p99 and max of every call, the fewest and most calls one client got answered
 * (a starved client shows there). `mark(label, send)` is called with 'start' and 'stop' around
 * the measured window, `send(headers)` making one call with those headers (bench/http-tail.js
 * tells its probe so).
 */
export async function crowd(url, name, args, tokens, seconds, mark = async () => {}) {
  const target = new URL(url);
  const payload = mcpCallBody(name, args);
  const pools = tokens.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const call = (i, extra = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent: pools[i],
          headers: { ...mcpCallHeaders(name, tokens[i]), 'content-length': Buffer.byteLength(payload), ...extra },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  await Promise.all(tokens.map((_, i) => call(i)));
  await mark('start', (extra) => call(0, extra));
  const latencies = [];
  const answered = tokens.map(() => 0);
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    tokens.map(async (_, i) => {
      while (performance.now() < end) {
        const started = performance.now();
        const status = await call(i).catch(() => 0);
        if (status !== 200) failed++;
        else {
          latencies.push(performance.now() - started);
          answered[i]++;
        }
      }
    }),
  );
  await mark('stop', (extra) => call(0, extra));
  for (const pool of pools) pool.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  return {
    requests: latencies.length,
    failed,
    p50: at(0.5),
    p99: at(0.99),
    max: Math.round(latencies.at(-1)),
    per_client: { min: Math.min(...answered), max: Math.max(...answered) },
  };
}

const gnuTime = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/**
 * Median wall and CPU time (user + system, from bash's `time`) and peak RSS (GNU time's maximum
 * resident set) of `runs` cold runs of `bourdon <args> --out <cwd>/out.yaml` in `cwd` with only
 * `env` (and PATH). Spawned asynchronously, so this process may serve what the command reads. On
 * a shared, loaded machine the wall time mostly measures the queue for a core; the CPU time is
 * what the export costs, and what it takes on an idle core.
 */
export async function measureExport(args, { cwd, env, runs }) {
  const wall = [];
  const cpu = [];
  const rss = [];
  const bin = path.join(ROOT, 'bin', 'run.js');
  const command = [process.execPath, bin, ...args, '--out', path.join(cwd, 'out.yaml')]
    .map((word) => `'${word}'`)
    .join(' ');
  const measured = gnuTime ? `${gnuTime} -f 'RSS %M' ${command}` : command;
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    let result;
    try {
      result = await promisify(execFile)('bash', ['-c', `TIMEFORMAT='%3U %3S'; time (${measured} >/dev/null)`], {
        cwd,
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      throw new Error(`${args.join(' ')} failed: ${error.stderr ?? error.message}`, { cause: error });
    }
    wall.push(Number(process.hrtime.bigint() - start) / 1e6);
    const lines = result.stderr.trim().split('\n');
    const [user, system] = lines.pop().split(' ').map(Number);
    cpu.push((user + system) * 1000);
    const peak = lines.map((line) => /^RSS (\d+)$/.exec(line)).find(Boolean);
    if (peak) rss.push(Number(peak[1]) / 1024);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return {
    wall_ms: Math.round(median(wall)),
    cpu_ms: Math.round(median(cpu)),
    rss_mb: rss.length ? Math.round(median(rss)) : null,
  };
}
