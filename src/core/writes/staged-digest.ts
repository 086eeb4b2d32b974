/**
 * What binds an operator's "yes, promote" (or "yes, reject") to what was reviewed: the staged
 * files' bytes read once, and their digest, which also covers the live manifest the review
 * compared them with. The review shows every character promoting would write, and that text
 * follows from exactly these bytes; a preview shows the digest, and a promotion or rejection
 * given it refuses when the staged files, or the live manifest they merge into, no longer hash
 * to it, and acts on the very files it hashed.
 */
import { crypto } from '../store/hashing.js';
import { pyRepr } from '../python-str.js';
import { readLive } from './history.js';

/** What the digest binds of a staged file (staging.ts lists them): who staged it, for which agent, where. */
export interface StagedFile {
  caller: string;
  agent_id: string;
  path: string;
}

export interface StagedBytes<Item extends StagedFile = StagedFile> {
  item: Item;
  data: Buffer | null;
}

export function readStagedBytes<Item extends StagedFile>(staged: Item[]): StagedBytes<Item>[] {
  return staged.map((item) => ({ item, data: readLive(item.path) }));
}

/** The live manifest's bytes as the digest covers them: none when absent or unreadable (a promotion then fails on it). */
export function readLiveForDigest(livePath: string): Buffer | null {
  try {
    return readLive(livePath);
  } catch {
    return null;
  }
}

/**
 * The digest of staged files as read, and of the live manifest they would merge into (see
 * PromotionPreview.digest).
 */
export function digestOf(files: StagedBytes[], live: Buffer | null): string | null {
  if (files.length === 0) return null;
  const hash = crypto().createHash('sha256');
  for (const { item, data } of files) {
    const bytes = data ?? Buffer.alloc(0);
    hash.update(`${item.caller}\0${item.agent_id}\0${data === null ? -1 : bytes.length}\0`);
    hash.update(bytes);
  }
  hash.update(`\0live\0${live === null ? -1 : live.length}\0`);
  if (live) hash.update(live);
  return hash.digest('hex');
}

/** The refusal of a promotion or rejection whose staged files changed since they were reviewed. */
export function stagedChangedMessage(agentId: string, action: 'promote' | 'reject' = 'promote'): string {
  const done = action === 'promote' ? 'promoted' : 'rejected';
  return `the staged writes for ${pyRepr(agentId)} (or the live manifest they merge into) changed since they were reviewed; nothing was ${done}. Review them again, then ${action}`;
}
