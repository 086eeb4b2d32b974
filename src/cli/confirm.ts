/**
 * Asking before a change, the same way on every command that asks (rollback, staging promote,
 * init's wizard): one `--yes` flag; without a terminal and without `--yes`, one usage error
 * (exit 2) naming `--yes`, before anything changes; Ctrl-C at a prompt is exit 130, nothing
 * changed. Prompts are on stderr: stdout keeps the command's answer.
 */
import { Flags } from '@oclif/core';
import type * as inquirer from '@inquirer/prompts';
import { BourdonError, UsageError } from '../core/errors.js';
import { confirmMessage } from './width.js';

/** The prompts, loaded when first asked for: most runs ask nothing. */
type Prompts = typeof inquirer;

/** Where prompts are drawn: stderr, so that stdout carries only the answer. */
export interface PromptContext {
  output: NodeJS.WriteStream;
}

/** The `--yes` (`-y`) flag of a command that asks first; `description` says what it then skips. */
export function yesFlag(description: string) {
  return Flags.boolean({ char: 'y', description, default: false });
}

/**
 * Refuses, before anything changes, when no one can be asked (stdin or stderr is not a
 * terminal): `not a terminal, so no one can be asked: pass --yes to <action>…`, exit 2.
 * `other` names another way to go on, when there is one.
 */
export function assertCanAsk(action: string, other?: string): void {
  if (process.stdin.isTTY && process.stderr.isTTY) return;
  throw new UsageError(
    `not a terminal, so no one can be asked: pass --yes to ${action}${other ? ` (${other})` : ''}; nothing was changed`,
  );
}

/**
 * Runs a command's prompts; Ctrl-C at any of them ends the command with `<what> cancelled;
 * nothing was changed` and the conventional 130 (128 + SIGINT).
 */
export async function prompting<T>(
  what: string,
  ask: (prompts: Prompts, context: PromptContext) => Promise<T>,
): Promise<T> {
  const prompts = await import('@inquirer/prompts');
  try {
    return await ask(prompts, { output: process.stderr });
  } catch (error) {
    // inquirer's errors for Ctrl-C and an aborted prompt, told apart by their class names.
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError'))
      throw new BourdonError(`${what} cancelled; nothing was changed`, 'cancelled');
    throw error;
  }
}

export interface Confirmation {
  /** `--yes` was given: nothing is asked. */
  yes: boolean;
  /** The yes/no question (default no). */
  question: string;
  /** What is done, after "pass --yes to" ("roll back"). */
  action: string;
  /** What is cancelled, before "cancelled" ("rollback"). */
  what: string;
  /** Another way to go on without a terminal, named in the refusal. */
  other?: string;
}

/** Asks before a change unless --yes; anything but yes ends the command with nothing changed. */
export async function confirmChange(confirmation: Confirmation): Promise<void> {
  if (confirmation.yes) return;
  assertCanAsk(confirmation.action, confirmation.other);
  const ok = await prompting(confirmation.what, ({ confirm }, context) =>
    confirm({ message: confirmMessage(confirmation.question), default: false }, context),
  );
  if (!ok) throw new BourdonError(`${confirmation.what} cancelled; nothing was changed`, 'cancelled');
}
