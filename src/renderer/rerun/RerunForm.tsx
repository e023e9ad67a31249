import { useId } from 'react';
import type { CompactionRow, StrategyRow } from '../../shared/api/contract';
import { num } from '../compare/format';
import { strategySource } from '../../shared/strategies/types';
import { useRerun } from './context';
import { formTarget, isMock } from './form';
import { KeysEditor } from './KeysEditor';
import { ModelChain } from './ModelChain';
import { OptionsEditor } from './OptionsEditor';

/**
 * The re-run panel's form: what to re-run (a compaction or a request), with which strategy, its
 * options and models, under which window, how many times; and the provider keys. Every control is
 * a native one, labelled, in tab order.
 */

function strategyText(s: StrategyRow): string {
  return `${s.id} — ${s.source === 'baseline' ? 'baseline, no model' : `${strategySource(s.source)}, needs a model`}`;
}

function compactionText(c: CompactionRow): string {
  const tokens = c.preTokens !== null ? ` · ${num(c.preTokens)} → ${num(c.postTokens)} tokens` : '';
  return `${c.id} · ${c.outcome ?? 'open'}${c.strategy ? ` · ${c.strategy}` : ''}${tokens}`;
}

function Target(): React.JSX.Element {
  const form = useRerun((s) => s.form);
  const compactions = useRerun((s) => s.compactions);
  const requests = useRerun((s) => s.requests.length);
  const setForm = useRerun((s) => s.setForm);
  const branch = useRerun((s) => s.branch);
  const defaultBranch = useRerun((s) => s.defaultBranch);
  const aim = useRerun((s) => s.aim);
  const id = useId();
  return (
    <fieldset className="rr-target">
      <legend>Re-run</legend>
      {branch !== null && branch !== defaultBranch && (
        <p className="small rr-branch">
          on branch <code>{branch}</code> (the inspector&apos;s){' '}
          <button
            type="button"
            className="link"
            onClick={() =>
              void aim({ target: formTarget(form) ?? { request: 0 }, ...(defaultBranch !== null ? { branch: defaultBranch } : {}) })
            }
          >
            use {defaultBranch ?? 'the default branch'}
          </button>
        </p>
      )}
      <div className="rr-target-row">
        <label className="rr-radio">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={form.targetKind === 'compaction'}
            disabled={compactions.length === 0}
            onChange={() => setForm({ targetKind: 'compaction' })}
          />
          a compaction
        </label>
        <select
          aria-label="Compaction"
          data-rr-target="compaction"
          value={form.compactionId}
          disabled={form.targetKind !== 'compaction'}
          onChange={(e) => setForm({ compactionId: e.target.value })}
        >
          {compactions.length === 0 && <option value="">this session has no compaction</option>}
          {compactions.map((c) => (
            <option key={c.id} value={c.id}>
              {compactionText(c)}
            </option>
          ))}
        </select>
      </div>
      <div className="rr-target-row">
        <label className="rr-radio">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={form.targetKind === 'request'}
            onChange={() => setForm({ targetKind: 'request' })}
          />
          the view at request
        </label>
        <input
          type="number"
          aria-label="Request"
          data-rr-target="request"
          min={0}
          max={Math.max(0, requests - 1)}
          value={form.request}
          disabled={form.targetKind !== 'request'}
          onChange={(e) => setForm({ request: e.target.value })}
        />
        <span className="muted small">of {num(requests)}</span>
      </div>
    </fieldset>
  );
}

function Settings(): React.JSX.Element {
  const form = useRerun((s) => s.form);
  const setForm = useRerun((s) => s.setForm);
  const demo = useRerun((s) => s.demo);
  const strategies = useRerun((s) => s.strategies);
  const strategy = strategies.find((s) => s.id === form.strategy);
  const mock = strategy?.needsModel === true && form.chain.some(isMock);
  return (
    <>
      <label className="rr-field">
        <span>Strategy</span>
        <select value={form.strategy} onChange={(e) => setForm({ strategy: e.target.value })}>
          {strategies.map((s) => (
            <option key={s.id} value={s.id}>
              {strategyText(s)}
            </option>
          ))}
        </select>
      </label>
      {strategy && (
        <p className="muted small rr-help">
          {strategy.title}
          {strategy.needsModel ? '' : ' — runs without a model or a key.'}
        </p>
      )}
      <OptionsEditor />
      {strategy?.needsModel ? <ModelChain /> : null}
      <div className="rr-row">
        <label className="rr-field">
          <span>Window (tokens)</span>
          <input
            type="text"
            inputMode="numeric"
            placeholder="the session's"
            value={form.window}
            onChange={(e) => setForm({ window: e.target.value })}
          />
        </label>
        <label className="rr-field">
          <span>Output reserve</span>
          <input
            type="text"
            inputMode="numeric"
            placeholder="the session's"
            value={form.maxOutput}
            onChange={(e) => setForm({ maxOutput: e.target.value })}
          />
        </label>
        <label className="rr-field rr-narrow">
          <span>Repeat</span>
          <input type="number" min={1} max={100} value={form.repeat} onChange={(e) => setForm({ repeat: e.target.value })} />
        </label>
        {mock && (
          <label className="rr-field">
            <span>Mock latency (ms)</span>
            <input
              type="text"
              inputMode="numeric"
              placeholder="0"
              value={form.mockLatencyMs}
              onChange={(e) => setForm({ mockLatencyMs: e.target.value })}
            />
          </label>
        )}
      </div>
      {demo && form.window === String(demo.window) && (
        <p className="rr-note" role="note">
          Window {num(demo.window)} is a demo setting: this source is about {num(demo.tokens)} tokens, which fits in the recent tail (20 %)
          of the session&apos;s window{demo.sessionWindow !== null ? ` (${num(demo.sessionWindow)})` : ''}, so a baseline would report
          &ldquo;nothing to truncate&rdquo;. Clear the field to use the session&apos;s window.
        </p>
      )}
    </>
  );
}

function NoKeyBanner(): React.JSX.Element | null {
  const noKeys = useRerun((s) => s.noKeys);
  const keys = useRerun((s) => s.keys);
  const applyDemo = useRerun((s) => s.applyDemo);
  if (!noKeys) return null;
  const names = keys?.providers.flatMap((p) => p.env) ?? [];
  return (
    <div className="rr-note" role="note">
      <strong>No API key is set</strong> ({[...new Set(names)].join(', ')}). The model-free baselines and the mock provider — scripted, not
      a model — run without one.{' '}
      <button type="button" className="link" onClick={applyDemo}>
        Use the demo settings
      </button>
    </div>
  );
}

export function RerunForm(): React.JSX.Element {
  const start = useRerun((s) => s.start);
  const starting = useRerun((s) => s.starting);
  const formError = useRerun((s) => s.formError);
  return (
    <form
      className="rr-form"
      aria-label="Re-run settings"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <NoKeyBanner />
      <Target />
      <Settings />
      <KeysEditor />
      <div className="rr-actions">
        <button type="submit" className="rr-primary" disabled={starting}>
          {starting ? 'Starting…' : 'Run'}
        </button>
        {formError && (
          <span className="rr-error" role="alert">
            {formError}
          </span>
        )}
      </div>
    </form>
  );
}
