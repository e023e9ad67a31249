import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./exit-guard.child.ts', import.meta.url));

function run(...args: string[]): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stderr: r.stderr };
}

describe('the exit guard every command runs under', () => {
  it('exits with the code the command settled with', () => {
    expect(run('1').code).toBe(1);
    expect(run('0').code).toBe(0);
  });

  it('turns a command that threw into exit 2 with its stack', () => {
    const r = run('throw');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('internal error: Error: boom');
  });

  // Node ends a process whose event loop is empty with exit 0, even while a promise is pending: a
  // command that awaited a worker's exit that way once exited 0 after finding errors.
  it('turns a command still pending when the process ends into exit 2, not 0', () => {
    const r = run('pending');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the command ended before it finished');
  });

  it('leaves an explicit exit alone: a pending command ended by process.exit(0) (a closed pipe) exits 0, quietly', () => {
    const r = run('pending', 'exit0');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
