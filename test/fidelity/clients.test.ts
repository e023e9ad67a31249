import { describe, expect, it } from 'vitest';
import { CLIENTS, clientAt, selectVersions } from '../../src/main/fidelity/clients';
import { type Scenario, readScenarios, scenariosFor } from '../../src/main/fidelity/scenario';

const dirs = { home: '/h', work: '/w', baseUrl: 'http://127.0.0.1:1' };

describe('client version matrix', () => {
  it('pins several versions per client, oldest first, the current one last', () => {
    for (const c of Object.values(CLIENTS)) {
      expect(c.versions.length).toBeGreaterThanOrEqual(5);
      expect(c.versions[c.versions.length - 1]).toBe(c.version);
      const nums = c.versions.map((v) => v.split('.').map(Number));
      for (let i = 1; i < nums.length; i++) {
        const [a, b] = [nums[i - 1] as number[], nums[i] as number[]];
        const d = (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);
        expect(d).toBeLessThan(0);
      }
    }
  });

  it('gives a definition per pinned version, and none for a version not pinned', () => {
    const old = clientAt('codex', '0.47.0');
    expect(old?.version).toBe('0.47.0');
    expect(old?.pkg).toBe('@openai/codex');
    expect(clientAt('codex', '0.171.0')).toBe(CLIENTS.codex);
    expect(clientAt('codex', '0.48.0')).toBeNull();
    expect(clientAt('claude-code', '0.47.0')).toBeNull();
  });

  it("builds each Codex version's argv: exec flags first, then `resume <id>`, the prompt last", () => {
    for (const v of CLIENTS.codex.versions) {
      const c = clientAt('codex', v);
      const a = c?.argv({ prompt: 'hi', resume: 'abc', args: ['-x'] }, dirs, ['-m', 'gpt-5.5']) ?? [];
      expect(a.slice(0, 3)).toEqual(['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox']);
      expect(a.slice(-3)).toEqual(['resume', 'abc', 'hi']);
      expect(a).toContain(
        'model_providers.mock={name="mock",base_url="http://127.0.0.1:1/v1",wire_api="responses",env_key="MOCK_KEY",request_max_retries=2,stream_max_retries=1}',
      );
      expect(a.indexOf('-m')).toBeLessThan(a.indexOf('resume'));
    }
  });

  it("builds each Claude Code version's argv: -p with JSON output, --resume at the end", () => {
    for (const v of CLIENTS['claude-code'].versions) {
      const a = clientAt('claude-code', v)?.argv({ prompt: 'hi', resume: 'abc', args: [] }, dirs, []) ?? [];
      expect(a).toEqual(['-p', 'hi', '--output-format', 'json', '--allowedTools', 'Bash', '--resume', 'abc']);
    }
  });

  it("builds each OpenCode version's argv and environment: run with JSON events, --session, the mock as its provider", () => {
    for (const v of CLIENTS.opencode.versions) {
      const c = clientAt('opencode', v);
      expect(c?.argv({ prompt: 'hi', resume: 'ses_1', args: [] }, dirs, ['-m', 'mock/mock-small'])).toEqual([
        'run',
        '--format',
        'json',
        '-m',
        'mock/mock-small',
        '--session',
        'ses_1',
        'hi',
      ]);
    }
    const env = CLIENTS.opencode.env(dirs);
    expect(env.XDG_DATA_HOME).toBe('/h/.local/share');
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '{}') as { provider: { mock: { options: { baseURL: string } } } };
    expect(config.provider.mock.options.baseURL).toBe('http://127.0.0.1:1/v1');
    expect(CLIENTS.opencode.sessionId('{"type":"step_start","sessionID":"ses_dc78814d1ffejN9uUxn4nmFlIB"}\n', '')).toBe(
      'ses_dc78814d1ffejN9uUxn4nmFlIB',
    );
    expect(CLIENTS.opencode.mainLog(['/h/.local/share/opencode/opencode.db', '/h/.local/share/opencode/opencode.db-wal'], null)).toBe(
      '/h/.local/share/opencode/opencode.db',
    );
    expect(CLIENTS.opencode.mainLog(['/h/.local/share/opencode/storage/message/ses_1/msg_1.json'], null)).toBe(
      '/h/.local/share/opencode/storage',
    );
  });

  it('selects versions: current, all, or a list of pinned ones', () => {
    expect(selectVersions('codex', 'current')).toEqual(['0.171.0']);
    expect(selectVersions('codex', 'all')).toEqual(CLIENTS.codex.versions);
    expect(selectVersions('codex', 'older')).toEqual(['0.47.0', '0.59.0', '0.77.0', '0.118.0', '0.169.0']);
    expect(selectVersions('claude-code', 'older')).not.toContain(CLIENTS['claude-code'].version);
    expect(selectVersions('codex', '0.47.0,2.0.77')).toEqual(['0.47.0']);
    expect(selectVersions('claude-code', '0.47.0,2.0.77')).toEqual(['2.0.77']);
    expect(selectVersions('codex', '9.9.9')).toMatch(/not pinned: 9\.9\.9/);
  });
});

describe('scenario variants per version', () => {
  const base = readScenarios('fixtures/fidelity/scenarios');
  const tools = base.find((s) => s.client === 'codex' && s.name === 'tools-resume') as Scenario;

  it('runs the file that lists a version, else the file that lists none', () => {
    const variant: Scenario = { ...tools, description: 'variant', versions: ['0.47.0'] };
    const all = [...base, variant];
    expect(scenariosFor(all, 'codex', '0.47.0').find((s) => s.name === 'tools-resume')?.description).toBe('variant');
    expect(scenariosFor(all, 'codex', '0.171.0').find((s) => s.name === 'tools-resume')?.description).toBe(tools.description);
    expect(scenariosFor(all, 'codex', '0.171.0').every((s) => s.client === 'codex')).toBe(true);
  });

  it('runs the further compaction faults on the current version only', () => {
    const old = scenariosFor(base, 'codex', '0.47.0', false).map((s) => s.name);
    expect(old).toEqual(['auto-compact', 'compact-http-500', 'tools-resume']);
    expect(scenariosFor(base, 'codex', '0.171.0', true).map((s) => s.name)).toContain('compact-overloaded');
    expect(
      scenariosFor(base, 'claude-code', '2.0.77', false)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['auto-compact', 'compact-http-500', 'manual-compact', 'tools-resume']);
  });

  it('runs no file of a name when every file of it is for other versions', () => {
    const only = [{ ...tools, versions: ['0.171.0'] }];
    expect(scenariosFor(only, 'codex', '0.47.0')).toEqual([]);
    expect(scenariosFor(only, 'codex', '0.171.0')).toHaveLength(1);
  });
});
