import { useEffect, useRef, useState } from 'react';
import type { ApiError, ApiOutput } from '../../shared/api/contract';
import { useSession } from './context';

/**
 * The export dialog (docs/export.md): the session as HTML or a compaction as Markdown, redacted or
 * not, with the user's own patterns and a preview of every redaction. Both the preview and the
 * export are built in main (previewExport, exportSession); the page only offers the document the
 * web host returns for download, or says where the desktop app saved it.
 */

type Preview = ApiOutput<'previewExport'>;

/** Saves text the host returned as a file: as bytes, never opened in the page. */
function download(doc: { filename: string; text: string }): void {
  const url = URL.createObjectURL(new Blob([doc.text], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = doc.filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ExportDialog(): React.JSX.Element {
  const api = useSession((s) => s.api);
  const sessionId = useSession((s) => s.sessionId);
  const branch = useSession((s) => s.branch);
  const compactions = useSession((s) => s.compactions);
  const close = useSession((s) => s.toggleExport);
  const [kind, setKind] = useState<'html' | 'markdown'>('html');
  const [compactionId, setCompactionId] = useState(compactions[0]?.id ?? '');
  const [redact, setRedact] = useState(true);
  const [patterns, setPatterns] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => first.current?.focus(), []);

  const own = patterns
    .split('\n')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const request = () => ({
    sessionId,
    ...(branch !== null ? { branch } : {}),
    kind,
    ...(kind === 'markdown' ? { compactionId } : {}),
    redact,
    patterns: own,
  });
  const changed = () => {
    setPreview(null);
    setDone(null);
    setError(null);
  };

  const runPreview = async () => {
    setBusy(true);
    changed();
    const r = await api.previewExport(request());
    setBusy(false);
    if (r.ok) setPreview(r.value);
    else setError(r.error);
  };

  const runExport = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    const r = await api.exportSession(request());
    setBusy(false);
    if (!r.ok) return setError(r.error);
    const v = r.value;
    const redacted = redact || own.length > 0 ? ` · ${v.redactions} redaction${v.redactions === 1 ? '' : 's'}` : ' · not redacted';
    if (v.cancelled) setDone('Not saved: the save dialog was cancelled.');
    else if (v.saved !== null) setDone(`Saved to ${v.saved}${redacted}`);
    else if (v.document) {
      download(v.document);
      setDone(`Downloaded ${v.document.filename}${redacted}`);
    }
  };

  const noCompaction = kind === 'markdown' && compactions.length === 0;
  return (
    <section
      className="sv-export"
      role="dialog"
      aria-label="Export"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          close();
        }
      }}
    >
      <h3>Export</h3>
      <fieldset>
        <legend>What</legend>
        <label>
          <input
            ref={first}
            type="radio"
            name="export-kind"
            checked={kind === 'html'}
            onChange={() => {
              setKind('html');
              changed();
            }}
          />{' '}
          the session as one HTML page (offline, no script)
        </label>
        <label>
          <input
            type="radio"
            name="export-kind"
            checked={kind === 'markdown'}
            onChange={() => {
              setKind('markdown');
              changed();
            }}
          />{' '}
          a compaction as Markdown
        </label>
        {kind === 'markdown' && (
          <label>
            compaction{' '}
            <select
              value={compactionId}
              onChange={(e) => {
                setCompactionId(e.target.value);
                changed();
              }}
              disabled={compactions.length === 0}
            >
              {compactions.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.id} · {c.trigger} · {c.outcome ?? 'open'}
                </option>
              ))}
            </select>
            {compactions.length === 0 && <span className="muted"> this branch has no compaction</span>}
          </label>
        )}
      </fieldset>
      <fieldset>
        <legend>Redaction</legend>
        <label>
          <input
            type="checkbox"
            checked={redact}
            onChange={(e) => {
              setRedact(e.target.checked);
              changed();
            }}
          />{' '}
          redact keys, tokens, private keys, .env secrets, e-mail addresses and home paths
        </label>
        <label className="sv-export-patterns">
          own patterns (regular expressions, one a line)
          <textarea
            rows={3}
            value={patterns}
            spellCheck={false}
            onChange={(e) => {
              setPatterns(e.target.value);
              changed();
            }}
          />
        </label>
        <p className="muted">Redaction is pattern-based: a secret no pattern describes is not redacted. Check the preview.</p>
      </fieldset>
      <div className="sv-export-actions">
        <button type="button" onClick={() => void runPreview()} disabled={busy || noCompaction || (!redact && own.length === 0)}>
          Preview redactions
        </button>
        <button type="button" onClick={() => void runExport()} disabled={busy || noCompaction}>
          Export…
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
        {busy && <span role="status">working…</span>}
      </div>
      {error && (
        <p className="notice error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </p>
      )}
      {done && <p role="status">{done}</p>}
      {preview && (
        <div className="sv-export-preview" aria-label="Redaction preview">
          <p>
            {preview.redactions === 0
              ? 'Nothing would be redacted.'
              : `${preview.redactions} redaction${preview.redactions === 1 ? '' : 's'}: ${Object.entries(preview.byRule)
                  .map(([r, n]) => `${r} ${n}`)
                  .join(', ')}`}
          </p>
          {preview.rows.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>rule</th>
                  <th>where</th>
                  <th>excerpt (already redacted)</th>
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r, i) => (
                  <tr key={i}>
                    <td>{r.rule}</td>
                    <td>
                      {r.place} / {r.field}
                    </td>
                    <td>
                      <code>{r.excerpt}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {preview.unlisted > 0 && <p className="muted">… and {preview.unlisted} more.</p>}
        </div>
      )}
    </section>
  );
}
