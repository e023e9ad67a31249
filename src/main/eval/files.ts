import { readdir, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import YAML from 'yaml';
import { NotRegularFile, readRegularFile, whyUnreadable } from '../files/open-regular';
import type { Result } from '../../shared/eval/result';

/*
 * Reading the eval's own files: specs and facts as YAML or JSON (by extension; YAML is a superset
 * of JSON, so anything else is read as YAML), and trace globs relative to the spec. Failures come
 * back as sentences naming the file.
 */

export type Read<T> = Result<T>;

export async function readStructured(path: string): Promise<Read<unknown>> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof NotRegularFile || code === 'ELOOP') return { ok: false, error: whyUnreadable(path, err) };
    return { ok: false, error: `${path}: cannot read (${code ?? (err as Error).message})` };
  }
  try {
    return {
      ok: true,
      value: extname(path) === '.json' ? (JSON.parse(text) as unknown) : (YAML.parse(text, { maxAliasCount: 100 }) as unknown),
    };
  } catch (err) {
    return {
      ok: false,
      error: `${path}: not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0] ?? ''}`,
    };
  }
}

const isGlob = (s: string): boolean => /[*?[]/.test(s);

function segmentRegex(seg: string): RegExp {
  let re = '';
  for (const ch of seg) {
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The files a trace path names, relative to `base` with '/' separators, sorted. A plain path is
 * returned as is (whether or not it exists: loading reports that). Globs support `*`, `?` and `**`
 * (any number of folders); hidden entries are matched only by patterns that start with a dot.
 */
export async function expandTracePath(base: string, pattern: string): Promise<string[]> {
  const norm = pattern.split(sep).join('/');
  if (!isGlob(norm)) return [norm];
  // An absolute glob is walked from the root and its matches stay absolute.
  if (isAbsolute(norm)) return (await expandTracePath('/', norm.slice(1))).map((p) => `/${p}`);
  const parts = norm.split('/');
  const out: string[] = [];
  async function walk(dir: string, i: number): Promise<void> {
    if (i === parts.length) {
      const st = await stat(dir).catch(() => null);
      if (st?.isFile()) out.push(relative(base, dir).split(sep).join('/'));
      return;
    }
    const part = parts[i] as string;
    if (part === '**') {
      await walk(dir, i + 1);
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) await walk(join(dir, e.name), i);
      return;
    }
    if (!isGlob(part)) {
      await walk(join(dir, part), i + 1);
      return;
    }
    const re = segmentRegex(part);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.') && !part.startsWith('.')) continue;
      if (re.test(e.name)) await walk(join(dir, e.name), i + 1);
    }
  }
  await walk(base, 0);
  return [...new Set(out)].sort();
}
