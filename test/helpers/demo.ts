/** The demo library with its history, as `bourdon demo --keep` leaves it, for tests of the binary. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as DemoModule from '../../src/core/admin/demo-library.js';
import { REPO_ROOT, tempDir } from './fixtures.js';

/**
 * A demo library in a temp dir (removed with the test file's other temp dirs) and the config
 * home its history was recorded with, built by the compiled module, as the binary runs it.
 */
export async function demoLibrary(prefix: string): Promise<{ library: string; home: string }> {
  const library = tempDir(`${prefix}-lib-`);
  const home = tempDir(`${prefix}-home-`);
  const demo = (await import(
    pathToFileURL(path.join(REPO_ROOT, 'dist', 'core', 'admin', 'demo-library.js')).href
  )) as typeof DemoModule;
  demo.installDemoLibrary(library);
  await demo.recordDemoHistory(library, home);
  return { library, home };
}
