import type { Importer } from '../types';

// Placeholder until the Claude Code importer lands: it claims nothing, so detection skips it.
export const claudeCodeImporter: Importer = {
  id: 'claude-code',
  label: 'Claude Code',
  sniff: () => 0,
  open: (_file, sink) => ({
    line: () => undefined,
    end: () => sink.diagnostic({ rule: 'FORMAT_UNSUPPORTED', severity: 'error', line: null, seqs: [], message: 'Claude Code logs are not supported yet.' }),
  }),
  rehydrate: () => null,
};
