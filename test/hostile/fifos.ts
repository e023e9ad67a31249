import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * FIFOs made by a test, and the way to release them: a FIFO opened for reading waits for a writer,
 * so after each test every FIFO is opened for writing (non-blocking), which ends any read the code
 * under test left waiting on it instead of holding a thread for the rest of the run.
 */
export class Fifos {
  private readonly made: string[] = [];

  make(path: string): string {
    execFileSync('mkfifo', [path]);
    this.made.push(path);
    return path;
  }

  release(): void {
    for (const f of this.made.splice(0)) {
      try {
        closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting: nothing to release.
      }
    }
  }
}

/** A temporary folder whose `fresh(name)` gives a new empty folder for each case. */
export function scratch(prefix: string): { readonly base: string; fresh(name: string): string; remove(): void } {
  const base = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    base,
    fresh(name) {
      const dir = join(base, `${n++}-${name}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}
