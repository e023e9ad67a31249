import type { EvalSpec } from '../../shared/eval/spec';
import type { PinnedModel } from '../../shared/rerun/pinned';
import { keyEnvNames, keySlot, type Env, type KeyReader } from '../providers/keys';

/*
 * The runner (./run.ts) resolves API keys from its environment only; it takes no key store. In the
 * desktop app the user may have stored keys instead (src/main/electron/keys.ts), so an eval started
 * from the app gets an environment with each stored key under the variable its model reads first —
 * only where that variable is unset (a set one wins, as for re-runs: providers/keys.ts). The
 * overlay lives in main for the length of the run; nothing here reaches the renderer.
 */

export async function envWithStoredKeys(spec: EvalSpec, env: Env, keys: KeyReader | null): Promise<Env> {
  if (keys === null) return env;
  const models: PinnedModel[] = spec.models.flatMap((m) => (m.pinned ? [m.pinned] : []));
  if (spec.judge?.model.pinned) models.push(spec.judge.model.pinned);
  const overlay: Record<string, string> = {};
  for (const m of models) {
    const names = keyEnvNames(m);
    const slot = keySlot(m);
    const first = names[0];
    if (first === undefined || slot === null || names.some((n) => env[n]?.trim() || overlay[n])) continue;
    const stored = await keys.get(slot);
    // A store that cannot be read leaves the model without a key: its cells fail saying so.
    if (stored.ok && stored.value) overlay[first] = stored.value;
  }
  return Object.keys(overlay).length === 0 ? env : { ...env, ...overlay };
}
