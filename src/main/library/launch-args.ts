import { resolve } from 'node:path';

/**
 * The desktop app's command line (read by src/main/electron/index.ts; kept out of the shell's
 * folder so that it is tested without Electron): session files and folders, and `--capture FILE` (repeatable, or
 * `--capture=FILE`) joined to the one session file, as `palimpsest serve` takes them. Other
 * switches (`--…`) are Chromium's and are left alone; they are never taken for paths.
 */
export interface ShellArgs {
  readonly paths: string[];
  readonly captures: string[];
}

export function shellArgs(args: readonly string[]): ShellArgs {
  const paths: string[] = [];
  const captures: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--capture') {
      const next = args[++i];
      if (next !== undefined && next !== '') captures.push(resolve(next));
    } else if (a.startsWith('--capture=')) {
      if (a.length > '--capture='.length) captures.push(resolve(a.slice('--capture='.length)));
    } else if (a !== '' && !a.startsWith('-')) paths.push(resolve(a));
  }
  return { paths, captures };
}
