import type { Importer } from '../types';

// Placeholder until the cosh importer lands: it claims nothing, so detection skips it.
export const coshImporter: Importer = {
  id: 'cosh',
  label: 'cosh',
  sniff: () => 0,
  open: (_file, sink) => ({
    line: () => undefined,
    end: () => sink.diagnostic({ rule: 'FORMAT_UNSUPPORTED', severity: 'error', line: null, seqs: [], message: 'cosh logs are not supported yet.' }),
  }),
  rehydrate: () => null,
};
