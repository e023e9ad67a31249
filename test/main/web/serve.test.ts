import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/main/command/args';
import { serve, serveCommand, SERVE_SPEC } from '../../../src/main/cli/serve';
import type { WebHost } from '../../../src/main/web/server';

const SMALL = 'fixtures/palimpsest/api-small.jsonl';

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('palimpsest serve', () => {
  it('prints the URL with the token, answers until told to stop, then closes', async () => {
    const { io, out } = collect();
    let stop!: () => void;
    const until = new Promise<void>((ok) => (stop = ok));
    let host!: WebHost;
    const listening = new Promise<void>((ok) => {
      void serve(
        {
          paths: [SMALL],
          port: 0,
          until,
          onListening: (h) => {
            host = h;
            ok();
          },
        },
        io,
      ).then((code) => out.push(`exit ${code}`));
    });
    await listening;
    expect(out.join('\n')).toContain(host.url);
    const r = await fetch(`${host.origin}/api/initialSessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(await r.json()).toEqual({ ok: true, value: { paths: [SMALL] } });
    stop();
    await expect.poll(() => out.at(-1)).toBe('exit 0');
    await expect(fetch(`${host.origin}/`)).rejects.toThrow();
  });

  it('lists the sessions of a folder argument in the library and opens them, not the folder itself', async () => {
    const { io, out } = collect();
    let stop!: () => void;
    const until = new Promise<void>((ok) => (stop = ok));
    let host!: WebHost;
    await new Promise<void>((ok) => {
      void serve(
        {
          paths: ['fixtures/palimpsest'],
          port: 0,
          until,
          onListening: (h) => {
            host = h;
            ok();
          },
        },
        io,
      ).then((code) => out.push(`exit ${code}`));
    });
    const call = async (method: string, body: unknown) =>
      (
        await fetch(`${host.origin}/api/${method}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json() as Promise<{
        ok: boolean;
        value?: { paths?: string[]; sessions?: { path: string; origin: string }[] };
        error?: { code: string };
      }>;
    expect((await call('initialSessions', {})).value).toEqual({ paths: [] });
    const listed = (await call('discoverSessions', {})).value?.sessions?.filter((s) => s.origin === 'folder').map((s) => s.path) ?? [];
    expect(listed).toContain(resolve(SMALL));
    expect((await call('openSession', { path: SMALL })).ok).toBe(true);
    expect((await call('openSession', { path: 'fixtures/codex/manifest.json' })).error?.code).toBe('FORBIDDEN_PATH');
    stop();
    await expect.poll(() => out.at(-1)).toBe('exit 0');
  });

  it('rejects bad arguments as usage errors', async () => {
    const { io } = collect();
    await expect(serveCommand(parseArgs(['--port', '70000'], SERVE_SPEC), io)).rejects.toBeInstanceOf(UsageError);
    await expect(serveCommand(parseArgs(['nope.jsonl'], SERVE_SPEC), io)).rejects.toThrow(/no such file/);
    expect(() => parseArgs(['--host', '0.0.0.0'], SERVE_SPEC)).toThrow(UsageError);
  });
});
