import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pairAndCompare } from '../../../src/main/fidelity/compare';
import { compareRequest } from '../../../src/main/wire/compare';
import { loggedRequests } from '../../../src/main/wire/pair';
import { anthropicRequest } from '../../../src/main/wire/normalize';
import { normalizeWire } from '../../../src/main/fidelity/compare';
import { bodyJson, readCaptured } from '../../../src/main/mock/record';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { toAnthropic, type Json } from '../../../src/main/wire';

/*
 * Every Claude Code 2.1.332 agent request the fidelity suite pairs with a logged request as a
 * match: `toAnthropic` of that logged request's view is the captured body, after the suite's own
 * normalisation (system, messages and tools), and its `messages` equal the captured ones exactly
 * once cache_control (a breakpoint the view does not carry) and message fields besides role and
 * content (Claude Code's `output_config` on its environment message) are taken off.
 */

const ROOT = 'fixtures/fidelity/logs/claude-code-2.1.332';
const scenarios = readdirSync(ROOT)
  .filter((d) => !d.startsWith('.'))
  .sort();

function stripCacheControl(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripCacheControl);
  if (typeof v === 'object' && v !== null) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'cache_control') out[k] = stripCacheControl(x);
    return out;
  }
  return v;
}

describe.each(scenarios)('view --wire anthropic reproduces the captured bodies of claude-code 2.1.332 %s', (scenario) => {
  it('for every request the fidelity suite reports as a match', async () => {
    const dir = join(ROOT, scenario);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
    const { requests: captured } = readCaptured(join(dir, 'captured.jsonl'));
    const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
    try {
      const logged = await loggedRequests(ins, 'anthropic-messages');
      const { requests } = pairAndCompare(captured, logged);
      const matches = requests.filter((r) => r.verdict === 'match' && r.view?.purpose === 'agent');
      expect(matches.length).toBeGreaterThanOrEqual(3);
      for (const r of matches) {
        const pv = r.view;
        if (!pv) throw new Error('a match has a view');
        const c = captured.find((x) => x.seq === r.seq);
        const view = await ins.fullView(pv.index, pv.branch);
        if (!c || !view) throw new Error(`wire #${r.seq}: no capture or view`);
        const wireBody = bodyJson(c) as Json;
        const wire = normalizeWire(c);
        if (!wire) throw new Error('not a model request');
        const out = toAnthropic(view, { harness: 'claude-code' });
        // The suite's normalisation: system, messages and tools all equal.
        const cmp = compareRequest(wire, anthropicRequest(out.body));
        expect(cmp.firstDiff, `wire #${r.seq}`).toBeNull();
        expect(cmp.verdict, `wire #${r.seq}`).toBe('match');
        // Exactly, but for cache_control.
        const roleAndContent = (ms: unknown): unknown => (ms as Json[]).map((m) => ({ role: m.role, content: m.content }));
        expect(stripCacheControl(out.body.messages), `wire #${r.seq} messages`).toEqual(
          stripCacheControl(roleAndContent(wireBody.messages)),
        );
        expect(out.body.model).toBe(wireBody.model);
        expect(out.unknowns).toContain('Claude Code\'s "x-anthropic-billing-header:" system block (no log records it)');
      }
    } finally {
      await ins.session.dispose();
    }
  });
});
