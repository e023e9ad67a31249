/*
 * The tables of the session index. Bump SCHEMA_VERSION whenever a table, a column or what a
 * column means changes (an importer or the replay reading the same bytes differently counts): an
 * index of another version is deleted and built again — it is a cache, nothing is lost.
 */

export const SCHEMA_VERSION = 2;

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- One row per session: a file (or Rind folder) by its path, an OpenCode session by path + id.
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  session_key TEXT NOT NULL DEFAULT '',
  harness TEXT NOT NULL,
  -- What decides "unchanged": the files' [path, size, mtimeMs] as JSON (an OpenCode session: what
  -- its listing says changed); the main file's size and the SHA-256 of its first 64 KiB when the
  -- content was read tell an append from a rewrite.
  stamps TEXT NOT NULL,
  -- The stamps the content (requests … item texts) was read at; null: not read yet.
  content_stamps TEXT,
  main_size INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  -- The fast scan's summary (what \`palimpsest ls\` prints), as JSON.
  summary TEXT NOT NULL,
  session_id TEXT,
  project TEXT,
  client_version TEXT,
  models TEXT NOT NULL DEFAULT '[]',
  first_at TEXT,
  last_at TEXT,
  bytes INTEGER NOT NULL,
  requests INTEGER,
  compactions INTEGER,
  findings INTEGER,
  peak_context INTEGER,
  -- Why the session's items are not indexed (it could not be loaded), or null.
  load_error TEXT,
  -- The health report's row read with the content, as JSON: {"row": …} or {"error": "why not"};
  -- null when the content was not read or could not be (src/main/catalog/health-row.ts).
  health TEXT,
  UNIQUE (path, session_key)
);

CREATE TABLE requests (
  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  model TEXT,
  prompt_tokens INTEGER,
  PRIMARY KEY (session, idx)
);

CREATE TABLE compactions (
  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compaction_id TEXT NOT NULL,
  trigger TEXT NOT NULL,
  outcome TEXT,
  strategy TEXT,
  attempts INTEGER NOT NULL
);
CREATE INDEX compactions_session ON compactions(session);

CREATE TABLE findings (
  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  rule TEXT NOT NULL,
  severity TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (session, rule, severity)
);

-- One row per item of the default branch; its text is the row of the same rowid in item_text.
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  item_index INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  -- The event that made it (what the session view selects in the raw history).
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  kind TEXT NOT NULL,
  -- The first request that could show it (null: made after the last request).
  request INTEGER,
  -- Its fate at the session's latest request (null: made after it).
  fate TEXT
);
CREATE INDEX items_session ON items(session);

CREATE VIRTUAL TABLE item_text USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
`;
