/**
 * `bourdon-l6-server` takes the Python server's flag names; this maps them onto
 * `bourdon serve`. Flags that are already ours pass through unchanged.
 */
const RENAMES: Record<string, string> = {
  '--library-root': '--library',
  '--agents-dir': '--library',
};

export function translateServerArgs(argv: readonly string[]): string[] {
  return argv.map((arg) => {
    const [name, ...rest] = arg.split('=');
    const renamed = RENAMES[name];
    if (!renamed) return arg;
    return rest.length ? `${renamed}=${rest.join('=')}` : renamed;
  });
}
