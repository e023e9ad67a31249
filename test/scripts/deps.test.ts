import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import * as deps from '../../scripts/deps.mjs';

/*
 * The layer rules of .dependency-cruiser.mjs, run on small trees written here: each tree breaks
 * one rule (or none), so a rule that stops matching (a regular expression gone wrong) fails here
 * instead of letting every import through.
 */

const { checkLayers } = deps as { checkLayers(root: string): Promise<{ ok: boolean; output: string }> };

const base = mkdtempSync(join(tmpdir(), 'palimpsest-deps-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let trees = 0;
/** A repository of `files` (path → source) with a plain tsconfig, in a folder of its own. */
function tree(files: Record<string, string>): string {
  const root = join(base, `tree-${trees++}`);
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The names of the rules broken, once each, sorted. */
function rules(output: string): string[] {
  return [...new Set([...output.matchAll(/error ([\w-]+):/g)].map((m) => m[1] as string))].sort();
}

describe('the layer rules (npm run deps)', () => {
  it('let a folder import the folders of its row, and src/shared', async () => {
    const r = await checkLayers(
      tree({
        'src/main/cli/main.ts':
          "import { parse } from '../command/args';\nimport { x } from '../../shared/x';\nexport const y = [parse, x];\n",
        'src/main/command/args.ts': 'export const parse = 1;\n',
        'src/shared/x.ts': 'export const x = 1;\n',
      }),
    );
    expect(r.output).toContain('no dependency violations');
    expect(r.ok).toBe(true);
  });

  it('refuse an import of a folder outside the row: discovery may not import cli', async () => {
    const r = await checkLayers(
      tree({
        'src/main/discovery/ls.ts': "import { run } from '../cli/main';\nexport const y = run;\n",
        'src/main/cli/main.ts': 'export const run = 1;\n',
      }),
    );
    expect(r.ok).toBe(false);
    expect(rules(r.output)).toEqual(['layer-discovery']);
  });

  it('refuse a cycle between two folders, besides the layer it breaks', async () => {
    const r = await checkLayers(
      tree({
        'src/main/session/load.ts': "import { count } from '../tokens/service';\nexport const load = () => count;\n",
        'src/main/tokens/service.ts': "import { load } from '../session/load';\nexport const count = () => load;\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(rules(r.output)).toEqual(['layer-session', 'no-cycle-across-main-folders']);
  });

  it('allow a cycle inside one src/main folder', async () => {
    const r = await checkLayers(
      tree({
        'src/main/importers/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'src/main/importers/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      }),
    );
    expect(r.ok).toBe(true);
  });

  it('refuse any cycle in src/shared, as the API contract had', async () => {
    const r = await checkLayers(
      tree({
        'src/shared/api/contract.ts': "import { S } from './session-contract';\nexport const C = { S };\nexport const Row = 1;\n",
        'src/shared/api/session-contract.ts': "import { Row } from './contract';\nexport const S = () => Row;\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(rules(r.output)).toEqual(['no-cycle-in-shared']);
  });

  it('refuse imports from a src/main folder the table does not list, and out of src/shared', async () => {
    const r = await checkLayers(
      tree({
        'src/main/newfolder/a.ts': "import { b } from '../files/b';\nexport const a = b;\n",
        'src/main/files/b.ts': 'export const b = 1;\n',
        'src/shared/c.ts': "import { b } from '../main/files/b';\nexport const c = b;\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(rules(r.output)).toEqual(['layer-unlisted', 'shared-stays-shared']);
  });

  it('refuse the renderer importing src/main, and src/main the renderer', async () => {
    const r = await checkLayers(
      tree({
        'src/renderer/app.ts': "import { b } from '../main/files/b';\nexport const a = b;\n",
        'src/main/files/b.ts': "import { v } from '../../renderer/view';\nexport const b = v;\n",
        'src/renderer/view.ts': 'export const v = 1;\n',
      }),
    );
    expect(r.ok).toBe(false);
    expect(rules(r.output)).toEqual(['main-not-renderer', 'renderer-not-main']);
  });
});
