/**
 * PyYAML as the reference reader: the engine reads manifests with `yaml.safe_load`, so what it
 * makes of a text is what ours must make of it. One python3 process reads a whole batch.
 */
import { execFileSync } from 'node:child_process';

/**
 * What PyYAML read: the value (dates as `{ $date: iso }`, NaN as `{ $nan: true }`, infinities as
 * `{ $inf: positive }`; with `kinds`, every other float as `{ $float: repr }` and an integer past
 * 2^53 as `{ $int: digits }`, which JSON would blur), or the error's class name.
 */
export type PyYamlResult = { value: unknown } | { error: string };

const READER = `
import sys, json, yaml, datetime
KINDS = sys.argv[1] == 'kinds'
def plain(v):
    if isinstance(v, (datetime.date, datetime.datetime)): return {"$date": v.isoformat()}
    if isinstance(v, dict): return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    if isinstance(v, float) and v != v: return {"$nan": True}
    if isinstance(v, float) and v in (float("inf"), float("-inf")): return {"$inf": v > 0}
    if KINDS and isinstance(v, float): return {"$float": repr(v)}
    if KINDS and isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53: return {"$int": str(v)}
    return v
out = []
for text in json.load(sys.stdin):
    try: out.append({"value": plain(yaml.safe_load(text))})
    except Exception as e: out.append({"error": type(e).__name__})
json.dump(out, sys.stdout)
`;

/** PyYAML's `safe_load` of each text, in order. */
export function pyYamlLoad(texts: readonly string[], options: { kinds?: boolean } = {}): PyYamlResult[] {
  const output = execFileSync('python3', ['-c', READER, options.kinds ? 'kinds' : 'plain'], {
    input: JSON.stringify(texts),
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(output.toString('utf8')) as PyYamlResult[];
}
