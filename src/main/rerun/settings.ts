import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { PinnedModel, type SummarizationChain } from '../../shared/rerun/pinned';
import { dataDir } from '../files/data-dir';

/*
 * Re-run settings: the ordered summarization-model chain of cosh (empty: the session's own
 * route; non-empty: only those models, in order), kept in `settings.json` under the data folder so
 * the app and `palimpsest rerun` share it. A model is pinned whole — provider, base URL, model,
 * parameters, window, prices — and never with a key (keys live in the environment or the app's
 * encrypted store; `keyEnv` names a variable, not a key). The file is configuration, not a
 * session's sidecar: it is replaced whole, through a temporary file and a rename, so a crash
 * leaves the old settings or the new ones, never half of either.
 */

export const SETTINGS_FILE = 'settings.json';
/** The longest chain kept (the API's limit). */
export const MAX_SETTINGS_CHAIN = 8;

const SettingsFile = z
  .object({
    format: z.literal('palimpsest-settings'),
    version: z.literal(1),
    summarizationChain: z.array(PinnedModel).max(MAX_SETTINGS_CHAIN),
  })
  .strict();

type Env = Readonly<Record<string, string | undefined>>;

export interface RerunSettings {
  readonly file: string;
  readonly chain: SummarizationChain;
  /** Why the file was not used (unreadable, not JSON, not valid): the chain is then empty. null: fine or absent. */
  readonly problem: string | null;
}

export function settingsFile(env: Env = process.env): string {
  return join(dataDir(env), SETTINGS_FILE);
}

function issues(e: z.ZodError): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(file)'}: ${i.message}`)
    .join('; ');
}

/** The settings; a missing file is an empty chain, a damaged one an empty chain with the reason. Never throws. */
export async function readSettings(env: Env = process.env): Promise<RerunSettings> {
  const file = settingsFile(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, chain: [], problem: null };
    return { file, chain: [], problem: `${file} could not be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err: unknown) {
    return {
      file,
      chain: [],
      problem: `${file} is not JSON (${err instanceof Error ? err.message : String(err)}); the chain is empty until it is fixed or saved again`,
    };
  }
  const r = SettingsFile.safeParse(json);
  if (!r.success)
    return {
      file,
      chain: [],
      problem: `${file} is not valid settings: ${issues(r.error)}; the chain is empty until it is fixed or saved again`,
    };
  return { file, chain: r.data.summarizationChain, problem: null };
}

/** Writes of this process, one after another in the order asked, so the last chain asked for is the one kept. */
let writes: Promise<unknown> = Promise.resolve();
let tmpSerial = 0;

/** Replaces the chain (validated first; a bad chain throws before anything is written). */
export function writeChain(chain: SummarizationChain, env: Env = process.env): Promise<RerunSettings> {
  const file = settingsFile(env);
  const parsed = SettingsFile.safeParse({ format: 'palimpsest-settings', version: 1, summarizationChain: chain });
  if (!parsed.success) return Promise.reject(new Error(`not a valid summarization chain: ${issues(parsed.error)}`));
  const doc = parsed.data;
  const write = async (): Promise<RerunSettings> => {
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${++tmpSerial}.tmp`;
    await writeFile(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, file);
    return { file, chain: doc.summarizationChain, problem: null };
  };
  const done = writes.then(write, write);
  writes = done.catch(() => undefined);
  return done;
}
