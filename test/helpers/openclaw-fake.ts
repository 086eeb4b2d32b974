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
import type { AddressInfo } from 'node:net';

export interface FakeRoute {
  status?: number;
  json?: unknown;
  text?: string;
}

export interface FakeApi {
  require_token: string | null;
  routes: Record<string, FakeRoute>;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface FakeInstance {
  /** `http://127.0.0.1:<port>`, no trailing slash (what `${OPENCLAW_URL}` stands for). */
  url: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Reads a case's `api.json`. */
export function readFakeApi(file: string): FakeApi {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as FakeApi;
}

function answer(response: http.ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/** Serves `api` until `close()`; routes' JSON is serialised once, up front. */
export async function serveFakeOpenclaw(api: FakeApi): Promise<FakeInstance> {
  const bodies = new Map(
    Object.entries(api.routes).map(([route, spec]) => [
      route,
      { status: spec.status ?? 200, body: spec.text ?? JSON.stringify(spec.json) },
    ]),
  );
  const requests: SeenRequest[] = [];
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
export function serveHandler(handler: http.RequestListener): Promise<FakeInstance> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: (request.url ?? '/').split('?')[0], headers: request.headers });
    handler(request, response);
  });
  return listen(server, requests);
}

async function listen(server: http.Server, requests: SeenRequest[]): Promise<FakeInstance> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
