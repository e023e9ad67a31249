import { createServer, type AddressInfo } from 'node:net';

/* What the headless and the interactive runs of a scenario (./run.ts, ./run-interactive.ts) share. */

/** The last `n` characters of a stream or a screen. */
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
export const RECORD_ROUTE: Readonly<Record<string, string>> = {
  'anthropic-messages': 'anthropic',
  'openai-responses': 'openai',
  'openai-chat': 'openai',
  gemini: 'gemini',
};
