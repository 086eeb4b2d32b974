/**
 * The README reads in an 80-column terminal or editor (issue 44, item 7): no line is wider
 * than 80 display columns, prose and code alike (code continued with ` \`, as the help's
 * examples are). A table cannot wrap, so the README has none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../src/cli/width.js';
import { REPO_ROOT } from './helpers/fixtures.js';

const WIDTH = 80;

describe('README.md', () => {
  it(`has no line wider than ${WIDTH} columns`, () => {
    const lines = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
    const wide = lines
      .map((line, index) => ({ line: index + 1, width: displayWidth(line), text: line }))
      .filter((entry) => entry.width > WIDTH);
    expect(wide).toEqual([]);
  });
});
