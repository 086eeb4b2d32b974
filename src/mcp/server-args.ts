/**
 * `bourdon-l6-server` takes the Python server's command line (getbourdon/bourdon,
 * core/l6_server.py `_parse_args`, prog `bourdon-l6-server`) and runs `bourdon serve` with it.
 * The Python flags are `--library`, `--transport {stdio,http}`, `--port` (default 7500),
 * `--peer` (repeatable), `--peers-config` and `--allow-unauthenticated`; each has the same
 * name and meaning in `bourdon serve`, so they pass through unchanged. Like argparse, an
 * unambiguous prefix of one of them (`--allow-unauth`, `--lib`) stands for the whole flag.
 *
 * Differences, on purpose (docs/http.md): the Python server binds every interface
 * (0.0.0.0) for HTTP; this one binds 127.0.0.1 unless `--host` says otherwise, and adds
 * `--host`, `--allowed-host` and `--allowed-origin`. It also takes `bourdon serve`'s
 * connection-profile flags (docs/profiles.md): `--tools read|write|all`, and `--url` with
 * `--token-env` for the stdio bridge to a running HTTP server.
 */
export const PYTHON_SERVER_FLAGS = [
  '--library',
  '--transport',
  '--port',
  '--peer',
  '--peers-config',
  '--allow-unauthenticated',
] as const;

/** Flags of `bourdon serve` that are not the Python server's; never prefix-expanded into. */
const OWN_FLAGS = [
  '--host',
  '--allowed-host',
  '--allowed-origin',
  '--tools',
  '--url',
  '--token-env',
  '--create',
  '--json',
  '--help',
];

export function translateServerArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const [index, arg] of argv.entries()) {
    if (arg === '--') {
      out.push(...argv.slice(index));
      break;
    }
    out.push(expandPrefix(arg));
  }
  return out;
}

function expandPrefix(arg: string): string {
  if (!arg.startsWith('--') || arg.length < 3) return arg;
  const [name = '', ...rest] = arg.split('='); // split gives at least one part
  if ((PYTHON_SERVER_FLAGS as readonly string[]).includes(name) || OWN_FLAGS.includes(name)) return arg;
  const candidates = PYTHON_SERVER_FLAGS.filter((flag) => flag.startsWith(name));
  const [only] = candidates;
  if (only === undefined || candidates.length !== 1 || OWN_FLAGS.some((flag) => flag.startsWith(name))) return arg; // ambiguous: oclif reports it
  return rest.length ? `${only}=${rest.join('=')}` : only;
}
