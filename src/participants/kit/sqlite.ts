/**
 * The read-only SQLite reader the exporters open their agents' databases with. It lives in core
 * (`src/core/native/sqlite.ts`) because the Codex turn compiler, an operation, reads Codex's
 * state database with it too; the exporters keep importing it from here.
 */
export { openReadOnly, ReadTimeout, type ReadOnlyDatabase, type Row } from '../../core/native/sqlite.js';
