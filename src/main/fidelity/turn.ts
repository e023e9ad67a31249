import { createServer, type AddressInfo } from 'node:net';
import type { ClientDef } from './clients';
import type { Scenario } from './scenario';

/* What a scenario's turns share, run as processes (./run.ts) or through a client's server (./serve.ts). */

export interface TurnResult {
  readonly prompt: string;
  /** The command line of the turn, or the API calls of a served turn (`POST /session/…`). */
  readonly argv: readonly string[];
  /** The process's exit code; a served turn: 0 when its last call answered 2xx, else 1. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly sessionId: string | null;
  readonly expect: 'ok' | 'fail' | 'any';
  /** The last 4,000 characters of each stream (a served turn: the last call's answer, and nothing). */
  readonly stdout: string;
  readonly stderr: string;
}

/** Where and how a scenario's turns are played. */
export interface TurnsContext {
  readonly scenario: Scenario;
  readonly client: ClientDef;
  /** The client's executable. */
  readonly bin: string;
  /** The run's folder, its HOME and its working directory. */
  readonly dir: string;
  readonly home: string;
  readonly work: string;
  readonly mockUrl: string;
  /** Play every turn behind `palimpsest record` (the built CLI at `cli`). */
  readonly record?: { readonly cli: string };
  readonly log?: (s: string) => void;
}

/** What playing a scenario's turns gave. */
export interface TurnsPlayed {
  readonly turns: readonly TurnResult[];
  /** The session the first turn made. */
  readonly sessionId: string | null;
  /** The captures `palimpsest record` wrote. */
  readonly captures: readonly string[];
  readonly problems: readonly string[];
}

export function tail(s: string, n = 4000): string {
  return s.length > n ? s.slice(s.length - n) : s;
}

/** A free port on 127.0.0.1 (the recorder's: Codex reads its base URL from a setting, not from the environment). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** The recorder's route for a client's provider (`/anthropic`, `/openai`). */
const RECORD_ROUTE: Readonly<Record<string, string>> = {
  'anthropic-messages': 'anthropic',
  'openai-responses': 'openai',
  'openai-chat': 'openai',
  gemini: 'gemini',
};

/** The base URL a client gets when `palimpsest record` listens on `port` in front of the mock. */
export function recorderBase(port: number, protocol: string): string {
  return `http://127.0.0.1:${port}/${RECORD_ROUTE[protocol] ?? 'anthropic'}`;
}

/** The problem a finished turn is, if any. */
export function turnProblem(i: number, t: TurnResult, timeoutMs: number, output: string): string | null {
  if (t.timedOut) return `turn ${i + 1} timed out after ${timeoutMs} ms`;
  if (t.expect === 'ok' && t.exitCode !== 0) return `turn ${i + 1} exited ${t.exitCode ?? t.signal}: ${tail(output, 300).trim()}`;
  if (t.expect === 'fail' && t.exitCode === 0) return `turn ${i + 1} was expected to fail and exited 0`;
  return null;
}
