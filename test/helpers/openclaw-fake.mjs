/**
 * The fake OpenClaw instance of the recorded openclaw cases (conformance/participants/README.md,
 * "Fake OpenClaw instance"): an `api.json` served over plain HTTP on 127.0.0.1 at a free port.
 * GET only; the path matched exactly after dropping `?query`; `text` bodies verbatim, else `json`
 * serialised; every answer `Content-Type: application/json`; an unknown path answers 404
 * `{"error": "not found"}`; with `require_token`, any request whose Authorization is not exactly
 * `Bearer <token>` answers 401 `{"error": "unauthorized"}`. It records each request's path and
 * headers, so tests can tell what the exporter sent. Tests and benches share it.
 */
import fs from 'node:fs';
import http from 'node:http';

/** Reads a case's `api.json`. */
export function readFakeApi(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function answer(response, status, body) {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/** Serves `api` until `close()`; routes' JSON is serialised once, up front. */
export async function serveFakeOpenclaw(api) {
  const bodies = new Map(
    Object.entries(api.routes).map(([route, spec]) => [
      route,
      { status: spec.status ?? 200, body: spec.text ?? JSON.stringify(spec.json) },
    ]),
  );
  const requests = [];
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    requests.push({ method: request.method ?? '', path, headers: request.headers });
    if (api.require_token !== null && request.headers.authorization !== `Bearer ${api.require_token}`)
      return answer(response, 401, JSON.stringify({ error: 'unauthorized' }));
    const route = request.method === 'GET' ? bodies.get(path) : undefined;
    if (!route) return answer(response, 404, JSON.stringify({ error: 'not found' }));
    answer(response, route.status, route.body);
  });
  return listen(server, requests);
}

/**
 * A server of any behaviour (a test's own handler: a stall, a redirect, an endless body), on
 * 127.0.0.1 at a free port, with the same handle as the fake instance.
 */
export function serveHandler(handler) {
  const requests = [];
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: (request.url ?? '/').split('?')[0], headers: request.headers });
    handler(request, response);
  });
  return listen(server, requests);
}

async function listen(server, requests) {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
