import { useId, useState } from 'react';
import { useRerun } from './context';
import { optionFields, strategyOptions, type OptionField } from './options';

/**
 * The chosen strategy's options (./options.ts) as typed fields: whole numbers, shares of the
 * window, and yes/no choices that can also be left to the strategy's default. Empty means the
 * default, shown as the placeholder. "Other options" takes key=value lines sent as they are, so
 * the strategy's own sentence about an option it does not know reaches the user. A problem shows
 * under the fields as it is typed; Run refuses to start until it is fixed.
 */

function Field({ f, value, onChange }: { f: OptionField; value: string; onChange: (v: string) => void }): React.JSX.Element {
  const hint = useId();
  // The label is the option's name alone (as docs/rerun.md and `--option` spell it); the help describes it.
  const control =
    f.kind === 'bool' ? (
      <select value={value} aria-describedby={hint} onChange={(e) => onChange(e.target.value)}>
        <option value="">default ({f.default})</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    ) : (
      <input
        type="text"
        inputMode={f.kind === 'int' ? 'numeric' : 'decimal'}
        placeholder={f.default}
        value={value}
        aria-describedby={hint}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  return (
    <div className="rr-field rr-option">
      <label>
        <span>{f.key}</span>
        {control}
      </label>
      <small id={hint} className="muted">
        {f.help}
      </small>
    </div>
  );
}

export function OptionsEditor(): React.JSX.Element | null {
  const strategy = useRerun((s) => s.form.strategy);
  const typed = useRerun((s) => s.form.options[strategy]);
  const extra = useRerun((s) => s.form.extraOptions[strategy] ?? '');
  const setForm = useRerun((s) => s.setForm);
  const options = useRerun((s) => s.form.options);
  const extras = useRerun((s) => s.form.extraOptions);
  const extraId = useId();
  // Folded until asked for (most runs keep the defaults); the user's toggle is kept while typing.
  const [open, setOpen] = useState(false);
  if (strategy === '') return null;
  const fields = optionFields(strategy);
  const values = typed ?? {};
  const checked = strategyOptions(strategy, values, extra);
  const set = (key: string, v: string): void => setForm({ options: { ...options, [strategy]: { ...values, [key]: v } } });
  const changed = Object.values(values).some((v) => v.trim() !== '') || extra.trim() !== '';
  return (
    <details className="rr-options" open={open || !checked.ok} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Options of {strategy}
        {changed && checked.ok ? `: ${Object.keys(checked.value).join(', ')}` : ''}
      </summary>
      {fields.length === 0 && <p className="muted small">This strategy documents no options.</p>}
      <div className="rr-option-grid">
        {fields.map((f) => (
          <Field key={f.key} f={f} value={values[f.key] ?? ''} onChange={(v) => set(f.key, v)} />
        ))}
      </div>
      <label className="rr-field" htmlFor={extraId}>
        <span>Other options</span>
      </label>
      <small id={`${extraId}-hint`} className="muted small">
        key=value, one a line, sent as they are: the strategy itself accepts or rejects them.
      </small>
      <textarea
        id={extraId}
        className="rr-extra"
        rows={2}
        spellCheck={false}
        value={extra}
        placeholder="key=value"
        aria-describedby={`${extraId}-hint`}
        onChange={(e) => setForm({ extraOptions: { ...extras, [strategy]: e.target.value } })}
      />
      {!checked.ok && (
        <p className="rr-error" role="alert">
          {checked.error}
        </p>
      )}
    </details>
  );
}
