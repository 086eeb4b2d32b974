/**
 * Ends a run with one plain line, `vitest: N passed, N failed, N skipped`, which CI tooling
 * reads to tell a run that tested something from one that did not.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  private line = '';

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
    }
    this.line = `vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`;
  }

  // After the default reporter's summary, so the plain line closes the output.
  onFinished(): void {
    if (this.line) process.stdout.write(`${this.line}\n`);
  }
}
