import { grouped } from '../../../shared/grouped';
/**
 * Text into HTML. Session content is untrusted: every character that could open markup or leave an
 * attribute is escaped, so a session's `<script>` is shown as text and never runs.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** A number with thousands separators, or a dash when unknown. */
export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : grouped(n);
}

/**
 * The strictest policy a static page can have: nothing is fetched, nothing runs; only the page's own
 * inline style and data: images (none are written today) are allowed.
 */
export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mute:#57606a;--line:#d0d7de;--soft:#f6f8fa;--warn:#9a6700;--err:#cf222e;--ok:#1a7f37;--acc:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mute:#8d96a0;--line:#30363d;--soft:#161b22;--warn:#d29922;--err:#f85149;--ok:#3fb950;--acc:#4493f8}}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}h3{font-size:15px;margin:12px 0 4px}
pre{white-space:pre-wrap;word-break:break-word;background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px;margin:4px 0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:480px;overflow:auto}
details{border:1px solid var(--line);border-radius:6px;margin:4px 0;padding:2px 8px}summary{cursor:pointer;padding:2px 0}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top}
.mute{color:var(--mute)}.error{color:var(--err)}.warning{color:var(--warn)}.info{color:var(--mute)}.ok{color:var(--ok)}
nav a{margin-right:12px}a{color:var(--acc)}
ol.v{columns:3 220px;font-size:12px;margin:4px 0;padding-left:28px}ol.v li.masked{color:var(--warn)}ol.v li.derived{font-weight:600}
article{border-top:1px solid var(--line);padding:6px 0}article h4{font-size:13px;margin:0;font-weight:600}
.chart svg{width:100%;height:auto;background:var(--soft);border:1px solid var(--line);border-radius:6px}
.tag{display:inline-block;border:1px solid var(--line);border-radius:10px;padding:0 6px;font-size:12px;margin-right:4px}
`;
