import { resolve } from 'node:path';
import { fingerprint } from './fingerprint';
import { ChangeWatch } from './watch';

/** How long a half-written last line may stay unfinished before the change counts anyway. */
const QUIET_MS = 1000;
const POLL_MS = 250;

/**
 * Resolves true once one of a loaded session's files no longer has the size it had when it was
 * loaded (lines appended, or the file truncated or rewritten) and ends with a whole line (or has
 * stayed unchanged for a second), false after `waitMs`. For the app's
 * Follow, which then opens the session again: the held request is the push, over either transport.
 * It owns its watch and timers and lets them go when it settles.
 */
export function awaitSessionChange(files: readonly { path: string; bytes: number }[], waitMs: number): Promise<boolean> {
  return new Promise((settle) => {
    let done = false;
    let looking = false;
    const finish = (changed: boolean): void => {
      if (done) return;
      done = true;
      watch.dispose();
      clearTimeout(timer);
      settle(changed);
    };
    const look = async (): Promise<void> => {
      if (done || looking) return;
      looking = true;
      try {
        for (const f of files) {
          const now = await fingerprint(f.path);
          if (now === null || now.size === f.bytes) continue;
          if (now.endsWithLf || Date.now() - now.mtimeMs >= QUIET_MS) return finish(true);
        }
      } finally {
        looking = false;
      }
    };
    const watch = new ChangeWatch(() => void look(), POLL_MS);
    watch.set(files.map((f) => resolve(f.path)));
    const timer = setTimeout(() => finish(false), waitMs);
    void look();
  });
}
