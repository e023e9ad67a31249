import type { Importer } from '../types';

// Placeholder until the Rind importer lands: it claims nothing, so detection skips it.
export const rindImporter: Importer = {
  id: 'rind',
  label: 'Rind',
  sniff: () => 0,
  open: (_file, sink) => ({
    line: () => undefined,
    end: () => sink.diagnostic({ rule: 'FORMAT_UNSUPPORTED', severity: 'error', line: null, seqs: [], message: 'Rind logs are not supported yet.' }),
  }),
  rehydrate: () => null,
};
