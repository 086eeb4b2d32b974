/**
 * Ends a run with one plain line, `vitest: N passed, N failed, N skipped`, which CI tooling
 * reads to tell a run that tested something from one that did not. Before it, one line per
 * reason tests were skipped for, when a suite or test names it as `(skipped: <reason>)` (the
 * page tests without Chromium, say), so a skip is never silent.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** The reason inside `(skipped: …)` in a test's full name (parentheses inside it balanced). */
export function skipReason(name: string): string | null {
  const start = name.indexOf('(skipped: ');
  if (start < 0) return null;
  let depth = 0;
  for (let i = start; i < name.length; i += 1) {
    if (name[i] === '(') depth += 1;
    else if (name[i] === ')' && --depth === 0) return name.slice(start + '(skipped: '.length, i);
  }
  return null;
}

export default class SummaryReporter implements Reporter {
  private line = '';
  private reasons = new Map<string, number>();

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else {
          skipped += 1;
          const reason = skipReason(test.fullName);
          if (reason !== null) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
        }
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
    }
    this.line = `vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`;
  }

  // After the default reporter's summary, so the plain line closes the output.
  onFinished(): void {
    for (const [reason, count] of this.reasons) process.stdout.write(`vitest: ${count} skipped because ${reason}\n`);
    if (this.line) process.stdout.write(`${this.line}\n`);
  }
}
