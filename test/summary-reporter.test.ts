/** A skipped suite says why in the run's closing lines: the reason is read from its name. */
import { describe, expect, it } from 'vitest';
import { skipReason } from './helpers/summary-reporter.js';

describe('skip reasons in the closing summary', () => {
  it('reads the reason a suite names, parentheses inside it kept', () => {
    expect(
      skipReason(
        'e2e.ui.test.ts > bourdon ui in Chromium (skipped: /usr/bin/chromium is missing (apt-get install chromium)) > shows agents',
      ),
    ).toBe('/usr/bin/chromium is missing (apt-get install chromium)');
    expect(skipReason('cx_full (skipped: participant codex is not registered)')).toBe(
      'participant codex is not registered',
    );
  });

  it('gives nothing for a name without a reason', () => {
    expect(skipReason('plain test (not skipped)')).toBeNull();
    expect(skipReason('unbalanced (skipped: never closed')).toBeNull();
  });
});
