import { useState } from 'react';
import { useRerun } from './context';
import { entryDetails } from './chain';
import { entryLabel, isMock, PROVIDERS, type ChainEntry } from './form';
import type { ModelKey } from './store';

/**
 * The summarization-model chain (cosh): tried in order, each with bounded retries before the
 * next; empty means the session's own model. It is a setting: an edit is saved for every session
 * (and `palimpsest rerun`), and each model is pinned whole — endpoint, window, parameters, prices. Entries are added, moved and removed with buttons;
 * each shows whether its key is set (and its last four characters) — never the key, which the
 * renderer does not have.
 */

function keyText(e: ChainEntry, k: ModelKey | undefined): { text: string; ok: boolean } {
  if (isMock(e)) return { text: 'no key needed', ok: true };
  if (!k) return { text: 'key: …', ok: true };
  if (k.error) return { text: k.error, ok: false };
  if (!k.needsKey) return { text: k.set ? `key set (${k.source ?? ''})` : 'no key sent (custom endpoint)', ok: true };
  if (!k.set) return { text: 'key not set', ok: false };
  return { text: `key set (${k.source === 'stored' ? 'stored' : 'environment'}${k.last4 ? `, …${k.last4}` : ''})`, ok: true };
}

function Entry({ e, first, last }: { e: ChainEntry; first: boolean; last: boolean }): React.JSX.Element {
  const k = useRerun((s) => s.modelKeys[e.key]);
  const move = useRerun((s) => s.moveModel);
  const remove = useRerun((s) => s.removeModel);
  const label = entryLabel(e);
  const key = keyText(e, k);
  return (
    <li className="rr-model">
      <code className="rr-model-name">{label}</code>
      {isMock(e) && <span className="tag rr-mock">mock — scripted, not a model</span>}
      {entryDetails(e).map((d) => (
        <span key={d} className="muted small">
          {d}
        </span>
      ))}
      <span className={`small ${key.ok ? 'muted' : 'rr-bad'}`}>{key.text}</span>
      <span className="rr-model-buttons">
        <button type="button" aria-label={`Move ${label} up`} disabled={first} onClick={() => move(e.key, -1)}>
          ↑
        </button>
        <button type="button" aria-label={`Move ${label} down`} disabled={last} onClick={() => move(e.key, 1)}>
          ↓
        </button>
        <button type="button" aria-label={`Remove ${label}`} onClick={() => remove(e.key)}>
          Remove
        </button>
      </span>
    </li>
  );
}

const EMPTY_PINS = { temperature: '', reasoning: '', maxOutput: '', prices: '', keyEnv: '' };

function AddModel(): React.JSX.Element {
  const add = useRerun((s) => s.addModel);
  const [provider, setProvider] = useState('mock');
  const [model, setModel] = useState('summarizer');
  const [baseUrl, setBaseUrl] = useState('');
  const [window, setWindow] = useState('');
  // What pins the model beyond its name: parameters, prices, the key's variable (checked on add, by the form).
  const [pins, setPins] = useState(EMPTY_PINS);
  const pin = (k: keyof typeof EMPTY_PINS) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setPins({ ...pins, [k]: e.target.value });
  const canAdd = model.trim() !== '';
  const submit = (): void => {
    if (!canAdd) return;
    add({ provider, model: model.trim(), baseUrl: baseUrl.trim(), window: window.trim(), ...pins });
    setPins(EMPTY_PINS);
  };
  return (
    <div className="rr-add" role="group" aria-label="Add a model">
      <select aria-label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
        {PROVIDERS.map((p) => (
          <option key={p.id} value={p.id}>
            {p.label}
          </option>
        ))}
      </select>
      <input type="text" aria-label="Model" placeholder="model id" value={model} onChange={(e) => setModel(e.target.value)} />
      <input
        type="text"
        aria-label="Base URL"
        placeholder="base URL (optional)"
        value={baseUrl}
        onChange={(e) => setBaseUrl(e.target.value)}
      />
      <input
        type="text"
        inputMode="numeric"
        aria-label="Model window"
        placeholder="window (optional)"
        value={window}
        onChange={(e) => setWindow(e.target.value)}
      />
      <details className="rr-pins">
        <summary>Parameters and prices</summary>
        <div className="rr-pins-grid">
          <input
            type="text"
            inputMode="decimal"
            aria-label="Temperature"
            placeholder="temperature 0–2"
            value={pins.temperature}
            onChange={pin('temperature')}
          />
          <select aria-label="Reasoning" value={pins.reasoning} onChange={pin('reasoning')}>
            <option value="">reasoning: provider default</option>
            <option value="low">low</option>
            <option value="medium">medium</option>
            <option value="high">high</option>
          </select>
          <input
            type="text"
            inputMode="numeric"
            aria-label="Model output ceiling"
            placeholder="max output tokens"
            value={pins.maxOutput}
            onChange={pin('maxOutput')}
          />
          <input
            type="text"
            aria-label="Prices"
            placeholder="$/M tokens: in,out[,cache read[,cache write]]"
            value={pins.prices}
            onChange={pin('prices')}
          />
          <input
            type="text"
            aria-label="Key variable"
            placeholder="key variable, e.g. OPENROUTER_API_KEY"
            value={pins.keyEnv}
            onChange={pin('keyEnv')}
          />
        </div>
      </details>
      <button type="button" disabled={!canAdd} onClick={submit}>
        Add model
      </button>
    </div>
  );
}

/** Where the chain is kept, and what happened to it last. */
function ChainSettings(): React.JSX.Element | null {
  const s = useRerun((x) => x.chainSettings);
  if (s.note === null && !s.saving) return null;
  return (
    <p className={`small ${s.ok ? 'muted' : 'rr-bad'}`} role="status" aria-label="Chain settings">
      {s.saving ? 'Saving in settings…' : s.note}
    </p>
  );
}

function ProviderKeys(): React.JSX.Element | null {
  const providers = useRerun((s) => s.keys?.providers ?? []);
  if (providers.length === 0) return null;
  return (
    <p className="small muted rr-keys" aria-label="Provider keys">
      Keys:{' '}
      {providers.map((p, i) => (
        <span key={p.provider}>
          {i > 0 && ' · '}
          {p.provider} <span className={p.set ? '' : 'rr-bad'}>{p.set ? `set${p.last4 ? ` …${p.last4}` : ''}` : 'not set'}</span>
        </span>
      ))}
    </p>
  );
}

export function ModelChain(): React.JSX.Element {
  const chain = useRerun((s) => s.form.chain);
  return (
    <fieldset className="rr-chain">
      <legend>Summarization models, in order</legend>
      {chain.length === 0 ? (
        <p className="muted small">Empty: the session&apos;s own model, as its log records it (cosh).</p>
      ) : (
        <ol aria-label="Model chain">
          {chain.map((e, i) => (
            <Entry key={e.key} e={e} first={i === 0} last={i === chain.length - 1} />
          ))}
        </ol>
      )}
      <AddModel />
      <ChainSettings />
      <ProviderKeys />
    </fieldset>
  );
}
