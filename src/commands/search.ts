import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { renderSearch, searchCommand, searchPayload } from '../cli/search-command.js';
import { searchMemoryOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { SearchMemoryAnswer } from '../core/operations/search-memory.js';

export default class Search extends BaseCommand {
  static override summary = 'Search everything agents remember.';
  static override description = `Entities (name, aliases, type, tags, summary), sessions (key actions, project, folder, files), notes (title, text, tags) and workstreams, ranked best first: an exact name or alias first, then by a relevance model that weighs a name above an alias above tags above summaries and actions. Forgives typos (one edit in a word of up to seven letters, two beyond; a swap of two neighbouring letters is one), accents and case; a row whose valid_to is past ranks below current ones. Only rows the access level shows are searched; snippets are redacted as every read is. Tool: ${searchMemoryOperation.name}.`;
  static override examples = [
    '<%= config.bin %> search tidewatr',
    '<%= config.bin %> search "harbour scheduling" --access-level team',
    '<%= config.bin %> search login --kind session --since 30d',
    '<%= config.bin %> search "salary bands" --access-level private --json',
  ];
  static override args = oclifArgs(searchCommand.args);
  static override flags = oclifFlags(searchCommand.flags);

  async run(): Promise<SearchMemoryAnswer> {
    const { args, flags } = await this.parse(Search);
    const payload = await searchPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    // No "N more at team" hint: what a level hides is never counted (docs/cli.md, `search`).
    const more = payload.truncated ? '\n' + '(more results: --limit raises how many are shown)' : '';
    return this.emit(payload, () => renderSearch(payload.results, args.text) + more);
  }
}
