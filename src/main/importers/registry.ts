import { claudeCodeImporter } from './claude-code';
import { codexImporter } from './codex';
import { coshImporter } from './cosh';
import { dshImporter } from './dsh';
import { geminiCliImporter } from './gemini-cli';
import { openCodeImporter } from './opencode';
import { palimpsestImporter } from './palimpsest';
import { rindImporter } from './rind';
import type { FormatId, Importer } from './types';

/** Every importer, in the order ties are broken. */
export const IMPORTERS: readonly Importer[] = [
  palimpsestImporter,
  dshImporter,
  claudeCodeImporter,
  codexImporter,
  rindImporter,
  coshImporter,
  geminiCliImporter,
  openCodeImporter,
];

export function importerById(id: FormatId): Importer | null {
  return IMPORTERS.find((i) => i.id === id) ?? null;
}

export interface Detection {
  readonly importer: Importer;
  readonly confidence: number;
}

/** The importer most confident about these first lines; null when none reaches 0.5. */
export function detectFormat(first: readonly Record<string, unknown>[], path: string): Detection | null {
  let best: Detection | null = null;
  for (const importer of IMPORTERS) {
    const confidence = importer.sniff(first, path);
    if (confidence >= 0.5 && (!best || confidence > best.confidence)) best = { importer, confidence };
  }
  return best;
}
