/**
 * oclif `command_not_found` hook: a mistyped command suggests the closest one on its one line
 * and exits 2 (a usage error), and extra words after a real command are named as unexpected arguments
 * instead of "command recent:a:b not found".
 */
import type { Hook } from '@oclif/core';
import { closestCommand } from '../cli/suggest.js';
import { shellWord } from '../cli/output.js';
import { stderrLine } from '../cli/width.js';

const hook: Hook.CommandNotFound = async function (options) {
  const visible = options.config.commands.filter((command) => !command.hidden).map((command) => command.id);
  const words = options.id.split(':');
  const spaced = (id: string) => id.replaceAll(':', ' ');
  let message: string;
  const commandPrefix = [...Array(words.length).keys()]
    .map((index) => words.slice(0, words.length - index).join(':'))
    .find((prefix) => prefix !== options.id && visible.includes(prefix));
  if (commandPrefix) {
    const extra = words.slice(commandPrefix.split(':').length);
    message = `unexpected argument${extra.length === 1 ? '' : 's'} for \`bourdon ${spaced(commandPrefix)}\`: ${extra.join(' ')} (see \`bourdon ${spaced(commandPrefix)} --help\`)`;
  } else {
    const suggestion = closestCommand(options.id, visible);
    const hint = suggestion
      ? `. Did you mean \`bourdon ${[spaced(suggestion.id), ...suggestion.rest.map(shellWord)].join(' ')}\`?`
      : '';
    message = `unknown command "${spaced(options.id)}"${hint} (\`bourdon help\` lists every command)`;
  }
  process.stderr.write(stderrLine(`bourdon: ${message}`));
  process.exitCode = 2;
  return 'not-found';
};

export default hook;
