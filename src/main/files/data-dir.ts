import { homedir } from 'node:os';
import { join } from 'node:path';

/*
 * The folder Palimpsest keeps its own data in (re-run results, settings, captures, eval output),
 * never a harness's folder: `$PALIMPSEST_DATA_DIR`, else `$XDG_DATA_HOME/palimpsest`, else
 * `~/.local/share/palimpsest`. Here, below every folder that writes there, so none imports another for it.
 */

type Env = Readonly<Record<string, string | undefined>>;

export function dataDir(env: Env = process.env, home: string = homedir()): string {
  if (env.PALIMPSEST_DATA_DIR) return env.PALIMPSEST_DATA_DIR;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'palimpsest');
  return join(home, '.local', 'share', 'palimpsest');
}
