import { useId, useState } from 'react';
import { useRerun } from './context';
import type { KeyProviderId } from './key-actions';
import type { KeyStatus } from './store';

/**
 * Provider API keys: which are set and from where (environment or the app's encrypted store), and,
 * in the desktop app, a password field to store one. The key typed here is sent to main once and
 * the field is emptied at once; nothing in the renderer keeps it, and nothing ever sends it back —
 * the rows show "set" and the last four characters. Where keys cannot be stored (the web host,
 * or a machine with no keychain) the host's sentence says why and what to do instead.
 */

type ProviderRow = KeyStatus['providers'][number];

/** Both OpenAI protocols share one key: one row for them. */
const SHARED: Readonly<Partial<Record<string, string>>> = { openai: 'openai (Chat and Responses)' };

function statusText(p: ProviderRow): string {
  if (!p.set) return `not set (${p.env.join(' or ')})`;
  const from = p.source === 'stored' ? 'stored, encrypted' : `from ${p.env.join(' or ')}`;
  return `set, ${from}${p.last4 ? `, …${p.last4}` : ''}`;
}

function KeyRow({ p, canStore, canRemove }: { p: ProviderRow; canStore: boolean; canRemove: boolean }): React.JSX.Element {
  const save = useRerun((s) => s.saveKey);
  const remove = useRerun((s) => s.removeKey);
  const busy = useRerun((s) => s.keyBusy);
  const [key, setKey] = useState('');
  const id = useId();
  const provider = p.provider as KeyProviderId;
  const send = (): void => {
    const k = key.trim();
    // Emptied before the answer: the key lives in this field only until it is sent.
    setKey('');
    if (k !== '') void save(provider, k);
  };
  return (
    <li className="rr-key" data-provider={p.provider}>
      <span className="rr-key-name">{SHARED[p.provider] ?? p.provider}</span>
      <span className={`small ${p.set ? 'muted' : 'rr-bad'}`}>{statusText(p)}</span>
      <span className="rr-key-edit">
        {canStore && (
          <>
            <label className="sr-only" htmlFor={id}>
              New {p.provider} API key
            </label>
            <input
              id={id}
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="paste a key to store"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              // This field sits inside the re-run form: Enter stores the key instead of starting a run.
              onKeyDown={(e) => {
                if (e.key !== 'Enter') return;
                e.preventDefault();
                send();
              }}
            />
            <button type="button" disabled={busy || key.trim() === ''} onClick={send}>
              Store
            </button>
          </>
        )}
        {/* Offered even when storing is refused or an environment variable wins: a stored key can always be forgotten. */}
        {canRemove && (
          <button type="button" disabled={busy} aria-label={`Remove the stored ${p.provider} key`} onClick={() => void remove(provider)}>
            Remove
          </button>
        )}
      </span>
    </li>
  );
}

export function KeysEditor(): React.JSX.Element | null {
  const keys = useRerun((s) => s.keys);
  const message = useRerun((s) => s.keyMessage);
  if (!keys) return null;
  const store = keys.store;
  const rows = keys.providers.filter((p) => p.provider !== 'openai-responses');
  return (
    <details className="rr-keys-editor">
      <summary>API keys</summary>
      {store.available ? (
        <p className="muted small">
          Stored keys are encrypted by the operating system (Electron safeStorage) in <code>{store.location}</code>. An environment
          variable, when set, is used first. Keys never come back to this window: it only sees whether one is set and its last four
          characters.
        </p>
      ) : (
        <p className="rr-note" role="note">
          {store.message}
        </p>
      )}
      <ul className="rr-key-list" aria-label="API keys">
        {rows.map((p) => (
          <KeyRow key={p.provider} p={p} canStore={store.available} canRemove={store.location !== null} />
        ))}
      </ul>
      {message && (
        <p className={message.ok ? 'small' : 'rr-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </details>
  );
}
