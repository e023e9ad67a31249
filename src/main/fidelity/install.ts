import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientDef } from './clients';

/*
 * Installs a pinned client on demand into a cache folder outside the app's dependencies:
 * `~/.cache/palimpsest-fidelity/<client>@<version>/` (or $PALIMPSEST_FIDELITY_CACHE), with
 * `npm install --prefix <dir> --no-save`. An install already there is reused when its binary
 * answers `--version` with the pinned version.
 */

export function cacheRoot(): string {
  return process.env.PALIMPSEST_FIDELITY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'palimpsest-fidelity');
}

export type Installed =
  | {
      readonly ok: true;
      readonly client: ClientDef;
      readonly prefix: string;
      readonly bin: string;
      readonly versionLine: string;
      readonly reused: boolean;
    }
  | { readonly ok: false; readonly client: ClientDef; readonly prefix: string; readonly error: string };

function versionOf(bin: string): string | null {
  if (!existsSync(bin)) return null;
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homedir() },
  });
  if (r.status !== 0) return null;
  return r.stdout.trim().split('\n')[0] ?? null;
}

export function installClient(client: ClientDef, opts: { root?: string; log?: (s: string) => void } = {}): Installed {
  const prefix = join(opts.root ?? cacheRoot(), `${client.id}@${client.version}`);
  const bin = client.bin(prefix);
  const have = versionOf(bin);
  if (have?.includes(client.version)) return { ok: true, client, prefix, bin, versionLine: have, reused: true };
  mkdirSync(prefix, { recursive: true });
  if (!existsSync(join(prefix, 'package.json'))) writeFileSync(join(prefix, 'package.json'), '{"private":true}\n');
  opts.log?.(`installing ${client.pkg}@${client.version} into ${prefix}`);
  const r = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `${client.pkg}@${client.version}`],
    {
      encoding: 'utf8',
      timeout: 600_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `npm exited ${r.status}: ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`;
    return { ok: false, client, prefix, error: why };
  }
  const got = versionOf(bin);
  if (!got)
    return {
      ok: false,
      client,
      prefix,
      error: `installed, but ${bin} --version does not run (no native binary for ${process.platform}-${process.arch}?)`,
    };
  if (!got.includes(client.version)) return { ok: false, client, prefix, error: `installed ${got}, not the pinned ${client.version}` };
  return { ok: true, client, prefix, bin, versionLine: got, reused: false };
}
