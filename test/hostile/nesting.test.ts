import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, dispatch, type HandlerTable } from '../../src/main/api/handlers';
import { SessionRegistry } from '../../src/main/api/sessions';
import { startWebHost, type WebHost } from '../../src/main/web/server';
import { mapBlock as dshBlock } from '../../src/main/importers/dsh/blocks';
import { jsonText as codexText } from '../../src/main/importers/codex/json';
import { depthExceeds, jsonText, jsonTextOf, textDepthExceeds } from '../../src/shared/json-depth';

const TOKEN = 'a-fixed-token-for-the-nesting-tests-0123456789abcdef';

/** `{"a":{"a":…1…}}` nested `depth` levels, as text: JSON.stringify would itself overflow building it. */
const deepText = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** The same value built in memory, without recursion. */
function deepValue(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const startRerun = (options: unknown) => ({ sessionId: 'no-such-session', target: { request: 0 }, strategy: 'truncate', options });

describe('deeply nested API input', () => {
  let registry: SessionRegistry;
  let handlers: HandlerTable;
  let host: WebHost;

  beforeAll(async () => {
    registry = new SessionRegistry({ allow: [] });
    handlers = createHandlers({ registry, initialPaths: [], logError: () => undefined });
    host = await startWebHost({ handlers, rendererDir: null, token: TOKEN });
  });
  afterAll(async () => {
    await host.dispose();
    handlers[Symbol.dispose]();
    registry.dispose();
  });

  it('dispatch of startRerun with options nested 10,000 deep is BAD_INPUT, not a stack overflow', async () => {
    const r = await dispatch(handlers, 'startRerun', startRerun({ x: deepValue(10_000) }));
    expect(r).toEqual({
      ok: false,
      error: { code: 'BAD_INPUT', message: expect.stringMatching(/startRerun: .*more than 100 levels deep/) as unknown },
    });
  });

  it('the handler itself refuses too deep an input (transports that call it directly)', async () => {
    const r = await handlers.startRerun(startRerun({ x: deepValue(100_000) }));
    expect(r).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });

  it('input just under the depth bound still reaches validation', async () => {
    const r = await dispatch(handlers, 'startRerun', startRerun({ x: deepValue(90) }));
    // Past the depth check: the session is unknown.
    expect(r).toMatchObject({ ok: false, error: { code: 'NO_SESSION' } });
  });

  it('a handler that throws is an error value from dispatch, never a throw', async () => {
    const throwing = { ...handlers, initialSessions: () => Promise.reject(new RangeError('Maximum call stack size exceeded')) };
    await expect(dispatch(throwing, 'initialSessions', {})).resolves.toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('the web host answers a 100,000-deep startRerun body with a 4xx JSON error, never 500', async () => {
    const body = `{"sessionId":"s","target":{"request":0},"strategy":"truncate","options":{"x":${deepText(100_000)}}}`;
    const reply = await new Promise<{ status: number; type: string; body: string }>((ok, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: host.port,
          path: '/api/startRerun',
          method: 'POST',
          headers: { Host: `127.0.0.1:${host.port}`, Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            ok({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      req.on('error', fail);
      req.end(body);
    });
    expect(reply.status).toBe(400);
    expect(reply.type).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });
});

describe('depth without recursion', () => {
  it('measures a 100,000-deep value and its text without overflowing the stack', () => {
    expect(depthExceeds(deepValue(100_000), 1000)).toBe(true);
    expect(textDepthExceeds(deepText(100_000), 1000)).toBe(true);
    expect(depthExceeds(deepValue(1000), 1000)).toBe(false);
    expect(depthExceeds(deepValue(1001), 1000)).toBe(true);
    expect(textDepthExceeds(deepText(1000), 1000)).toBe(false);
    expect(textDepthExceeds(deepText(1001), 1000)).toBe(true);
  });

  it('brackets inside strings are not nesting', () => {
    const text = JSON.stringify({ a: '[[[[[[[[[[{{{{{{{{{{', b: 'say \\"[[[[[[[[[[' });
    expect(textDepthExceeds(text, 2)).toBe(false);
  });

  it('writes the JSON text of a value too deep for JSON.stringify, exactly as the log had it', () => {
    expect(() => JSON.stringify(deepValue(100_000))).toThrow(RangeError);
    expect(jsonText(deepValue(100_000))).toBe(deepText(100_000));
    expect(jsonTextOf(deepValue(100_000))).toBe(deepText(100_000));
    for (const v of [
      1,
      'a"b',
      null,
      [],
      {},
      [1, [2, { a: [3] }], 'x'],
      { a: { b: [1, 2, { c: null }] }, d: 'e', u: undefined },
      [undefined, 1],
    ]) {
      expect(jsonText(v)).toBe(JSON.stringify(v));
    }
  });
});

describe('importers given tool arguments nested 100,000 deep', () => {
  it('DeepSeek Harness keeps the arguments as their whole JSON text', () => {
    expect(dshBlock({ type: 'tool-call', id: 'c1', name: 'bash', arguments: deepValue(100_000) })).toEqual({
      type: 'tool_call',
      id: 'c1',
      name: 'bash',
      input: deepText(100_000),
    });
  });

  it('Codex keeps the arguments as their whole JSON text, not "[object Object]"', () => {
    expect(codexText(deepValue(100_000))).toBe(deepText(100_000));
  });
});
