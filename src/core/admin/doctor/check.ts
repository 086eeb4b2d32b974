/**
 * What a doctor check answers: a verdict, a one-line summary and the details behind it.
 * Verdicts: `ok`; `info` (worth knowing, nothing wrong); `warn` (works, but probably not as
 * meant); `fail` (something is wrong: data is not read, a file is invalid, a write or a peer
 * call would fail).
 */
export type Verdict = 'ok' | 'info' | 'warn' | 'fail';

export interface CheckResult {
  id: string;
  title: string;
  verdict: Verdict;
  summary: string;
  details: string[];
}

export function check(
  id: string,
  title: string,
  verdict: Verdict,
  summary: string,
  details: string[] = [],
): CheckResult {
  return { id, title, verdict, summary, details };
}

export { plural } from '../../store/words.js';
