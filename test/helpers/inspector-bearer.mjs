// Test shim for the MCP Inspector CLI 0.15.0, which has no option to send HTTP headers: loaded
// with `node --import`, it adds `Authorization: Bearer $INSPECTOR_BEARER_TOKEN` to every fetch
// the inspector makes. Everything else (its SDK client, its streamable HTTP transport, its
// JSON-RPC) is the inspector's own. Without this shim the same command gets 401 (tested).
const token = process.env.INSPECTOR_BEARER_TOKEN;
const original = globalThis.fetch;
if (token && original) {
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', `Bearer ${token}`);
    return original(input, { ...init, headers });
  };
}
