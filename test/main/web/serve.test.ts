import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/main/cli/args';
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
      void serve({ paths: [SMALL], port: 0, until, onListening: (h) => { host = h; ok(); } }, io).then((code) => out.push(`exit ${code}`));
    });
    await listening;
    expect(out.join('\n')).toContain(host.url);
    const r = await fetch(`${host.origin}/api/initialSessions`, {
      method: 'POST', headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' }, body: '{}',
    });
    expect(await r.json()).toEqual({ ok: true, value: { paths: [SMALL] } });
    stop();
    await expect.poll(() => out.at(-1)).toBe('exit 0');
    await expect(fetch(`${host.origin}/`)).rejects.toThrow();
  });

  it('rejects bad arguments as usage errors', async () => {
    const { io } = collect();
    await expect(serveCommand(parseArgs(['--port', '70000'], SERVE_SPEC), io)).rejects.toBeInstanceOf(UsageError);
    await expect(serveCommand(parseArgs(['nope.jsonl'], SERVE_SPEC), io)).rejects.toThrow(/no such file/);
    await expect(serveCommand(parseArgs(['fixtures'], SERVE_SPEC), io)).rejects.toThrow(/not a file/);
    expect(() => parseArgs(['--host', '0.0.0.0'], SERVE_SPEC)).toThrow(UsageError);
  });
});
