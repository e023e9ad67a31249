import { describe, expect, it, vi } from 'vitest';

// A bug inside a command (here: the loader throwing a plain Error) is still an exit 2 with the
// JSON error under --json, so a script learns that it failed and why.
vi.mock('../../src/main/session/load', async (original) => ({
  ...(await original<typeof import('../../src/main/session/load')>()),
  loadSession: () => Promise.reject(new Error('boom in the loader')),
}));

const { runCli } = await import('../../src/main/cli/main');

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('an internal error', () => {
  it('under --json: exit 2, the JSON error with code INTERNAL on stdout, the stack on stderr', async () => {
    const r = await run('validate', 'package.json', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({ palimpsest: 1, error: 'internal error: boom in the loader', code: 'INTERNAL', diagnostics: [] });
    expect(r.err).toContain('boom in the loader');
  });

  it('without --json: thrown as before, for the command to print with its stack', async () => {
    await expect(run('validate', 'package.json')).rejects.toThrow('boom in the loader');
  });
});
