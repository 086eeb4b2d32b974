/** Flags shared by the query commands, named after the tools' arguments. */
import { Flags } from '@oclif/core';
import { ACCESS_LEVELS } from '../core/trust/access.js';

export const accessFlags = {
  'access-level': Flags.string({
    description:
      'Read at this level: public, team or private (default: the tool default, or $BOURDON_DEFAULT_ACCESS_LEVEL).',
    options: [...ACCESS_LEVELS],
  }),
  'include-private': Flags.boolean({
    description: 'Include private rows (same as --access-level private).',
    default: false,
  }),
};

export function accessArgs(flags: { 'access-level'?: string; 'include-private'?: boolean }): {
  access_level?: string;
  include_private?: boolean;
} {
  const out: { access_level?: string; include_private?: boolean } = {};
  if (flags['access-level']) out.access_level = flags['access-level'];
  if (flags['include-private']) out.include_private = true;
  return out;
}
