/**
 * The claude-desktop-code participant: the Claude desktop app's GUI Claude Code conversations
 * (`<desktop dir>/claude-code-sessions`), metadata only (conformance/participants/README.md,
 * "claude_desktop_code"). Everything but its wording and the effort label is surface.ts.
 */
import { ACTION_LIMITS, desktopSurfaceParticipant, label, labelled, mcpAction, titleAction } from './surface.js';

const EFFORT_LIMIT = 40;

export const claudeDesktopCodeParticipant = desktopSurfaceParticipant<{ effort: string }>({
  agentId: 'claude-desktop-code',
  help: {
    summary: "Publish Claude desktop's Claude Code conversations (metadata only).",
    reads:
      "Reads the metadata of each conversation the Claude desktop app's Claude Code tab keeps ($BOURDON_CLAUDE_DESKTOP_DIR, else ~/.config/Claude on Linux, ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows; its claude-code-sessions folder) read-only: title, folders, model, effort, permission mode, MCP tool count — never what was said. Nothing is written when that folder does not exist.",
  },
  store: 'claude-code-sessions',
  sourceName: 'claude_code_sessions',
  tag: 'claude-desktop-code',
  roleNarrative:
    "The Claude desktop app's Claude Code tab. Bourdon reads only each conversation's local " +
    'metadata (title, project folders, model, effort, permission mode, how many MCP tools were on), ' +
    'never what was said, so other agents can see what desktop Claude Code worked on.',
  entityName: 'Claude Desktop Code',
  entitySummary: 'Claude desktop app GUI Claude Code surface (metadata-only federation).',
  projectSummary: 'Project inferred from a Claude Desktop Code conversation cwd.',
  untitled: '(untitled conversation)',
  extra: (state) => ({ effort: label(state.effort, EFFORT_LIMIT) }),
  keyActions: (conversation) => [
    titleAction(conversation.title),
    ...labelled('model', conversation.model, ACTION_LIMITS.model),
    ...labelled('effort', conversation.extra.effort, ACTION_LIMITS.effort),
    ...labelled('permission', conversation.permission, ACTION_LIMITS.permission),
    ...mcpAction(conversation.mcpTools),
  ],
  capabilities: () => [],
});
