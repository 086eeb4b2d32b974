/** Types of openclaw-fake.mjs (the fake OpenClaw instance tests and benches share). */
import type http from 'node:http';

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

export function readFakeApi(file: string): FakeApi;
export function serveFakeOpenclaw(api: FakeApi): Promise<FakeInstance>;
export function serveHandler(handler: http.RequestListener): Promise<FakeInstance>;
