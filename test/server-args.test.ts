/** `bourdon-l6-server` takes the Python server's flags (core/l6_server.py `_parse_args`). */
import { describe, expect, it } from 'vitest';
import { PYTHON_SERVER_FLAGS, translateServerArgs } from '../src/mcp/server-args.js';

describe('translateServerArgs', () => {
  it('passes the Python flag names through unchanged', () => {
    const argv = [
      '--library',
      '/lib',
      '--transport',
      'http',
      '--port=7600',
      '--peer',
      'http://a:7500',
      '--peers-config',
      'p.yaml',
      '--allow-unauthenticated',
    ];
    expect(translateServerArgs(argv)).toEqual(argv);
    expect([...PYTHON_SERVER_FLAGS].sort()).toEqual(
      ['--allow-unauthenticated', '--library', '--peer', '--peers-config', '--port', '--transport'].sort(),
    );
  });

  it('expands an unambiguous prefix, as argparse does', () => {
    expect(translateServerArgs(['--allow-unauth', '--lib=/x', '--trans', 'http', '--peers', 'p.yaml'])).toEqual([
      '--allow-unauthenticated',
      '--library=/x',
      '--transport',
      'http',
      '--peers-config',
      'p.yaml',
    ]);
  });

  it('leaves ambiguous prefixes, our own flags, values and everything after -- alone', () => {
    expect(
      translateServerArgs(['--p', '--pe', '--allow', '--host', '0.0.0.0', '--allowed-host', 'x', '--', '--lib']),
    ).toEqual(['--p', '--pe', '--allow', '--host', '0.0.0.0', '--allowed-host', 'x', '--', '--lib']);
    expect(translateServerArgs(['/some/--lib-looking/value'])).toEqual(['/some/--lib-looking/value']);
  });
});
