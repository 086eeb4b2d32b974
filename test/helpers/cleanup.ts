/** Runs in every test file (vitest setupFiles): what a file made in the temp directory goes with it. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './fixtures.js';

afterAll(() => {
  removeTempDirs();
});
