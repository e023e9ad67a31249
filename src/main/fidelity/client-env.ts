import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/* What every client definition (clients.ts, client-*.ts) shares: its environment and a file walk. */

/** Environment every client gets: nothing of the caller's but PATH and locale. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
  };
  return env;
}

/** Files under `dir` whose name ends with `ext`, sorted (depth-first, bounded). */
export function filesUnder(dir: string, ext: string, limit = 10_000): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 12 || out.length >= limit || !existsSync(d)) return;
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, depth + 1);
      else if (name.endsWith(ext)) out.push(p);
    }
  };
  walk(dir, 0);
  return out;
}
