import type { Importer } from '../types';

// Placeholder until the Codex CLI importer lands: it claims nothing, so detection skips it.
export const codexImporter: Importer = {
  id: 'codex',
  label: 'Codex CLI',
  sniff: () => 0,
  open: (_file, sink) => ({
    line: () => undefined,
    end: () => sink.diagnostic({ rule: 'FORMAT_UNSUPPORTED', severity: 'error', line: null, seqs: [], message: 'Codex CLI logs are not supported yet.' }),
  }),
  rehydrate: () => null,
};
