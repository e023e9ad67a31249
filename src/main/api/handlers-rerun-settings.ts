import type { z } from 'zod';
import { CONTRACT, ModelSpec, type ApiOutput, type PinnedModelRow } from '../../shared/api/contract';
import type { PinnedModel } from '../../shared/rerun/pinned';
import type { Env } from '../providers/keys';
import { pinnedOf } from '../rerun/jobs';
import { readSettings, writeChain, type RerunSettings } from '../rerun/settings';
import { ApiFailure } from './sessions';
import { contractOutput } from './conform';

/*
 * The re-run settings methods: rerunSettings and setSummarizationChain (src/main/rerun/settings.ts
 * keeps the file). The chain crosses the API in the object form of ModelSpec, whose `keyEnv` may
 * only name a *_API_KEY variable; a hand-edited file naming another is reported as a problem, not
 * trimmed: a chain with a model silently left out would be another chain.
 */

type SettingsMethod = 'rerunSettings' | 'setSummarizationChain';
type SettingsImpl = { readonly [M in SettingsMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

const ObjectSpec = ModelSpec.options[1];

/** A pinned model as the API's object form (only what is set). */
export function specOf(m: PinnedModel): PinnedModelRow {
  return {
    provider: m.provider,
    model: m.model,
    ...(m.baseUrl !== undefined ? { baseUrl: m.baseUrl } : {}),
    ...(m.window !== null ? { window: m.window } : {}),
    ...(m.keyEnv !== undefined ? { keyEnv: m.keyEnv } : {}),
    ...(Object.keys(m.params).length > 0 ? { params: m.params } : {}),
    ...(m.prices !== undefined ? { prices: m.prices } : {}),
  };
}

function answer(s: RerunSettings): ApiOutput<'rerunSettings'> {
  const rows = s.chain.map(specOf);
  const bad = rows.findIndex((r) => !ObjectSpec.safeParse(r).success);
  if (bad >= 0) {
    const m = rows[bad] as PinnedModelRow;
    return contractOutput('rerunSettings', {
      file: s.file,
      chain: [],
      problem: `${s.file}: model ${bad + 1} (${m.provider}:${m.model}) cannot be offered to the app (its keyEnv must name a *_API_KEY variable, its window be at most 100,000,000); the chain is empty until it is fixed or saved again`,
    });
  }
  return contractOutput('rerunSettings', { file: s.file, chain: rows, problem: s.problem });
}

export function settingsImplementations(env: Env): SettingsImpl {
  return {
    async rerunSettings() {
      return answer(await readSettings(env));
    },
    async setSummarizationChain({ models }) {
      const chain: PinnedModel[] = [];
      for (const spec of models) {
        const p = pinnedOf(spec);
        if (!p.ok) throw new ApiFailure('BAD_INPUT', p.error);
        chain.push(p.value);
      }
      return answer(await writeChain(chain, env));
    },
  };
}
