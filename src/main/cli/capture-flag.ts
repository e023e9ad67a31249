import { attachCaptures, CaptureError, readCaptures } from '../capture/attach';
import type { SessionInspector } from '../session/inspector';
import { type ParsedArgs, UsageError } from '../command/args';
import { CommandFailure } from '../command/fail';

/*
 * `--capture FILE` (repeatable), taken by every command that takes a session: the captures are
 * read and joined to the session's default branch before the command answers.
 */

export const CAPTURE_SPEC: Record<string, 'value' | 'boolean'> = { capture: 'value' };

export function captureFlags(args: ParsedArgs): string[] {
  return args.lists.get('capture') ?? [];
}

export async function joinCaptureFlags(inspector: SessionInspector, args: ParsedArgs, branch?: string): Promise<void> {
  const paths = captureFlags(args);
  if (paths.length === 0) return;
  if (branch !== undefined && branch !== inspector.defaultBranch)
    throw new UsageError(`--capture joins the default branch (${inspector.defaultBranch}), not "${branch}"`);
  try {
    await attachCaptures(inspector, await readCaptures(paths));
  } catch (err: unknown) {
    if (err instanceof CaptureError) throw new CommandFailure('UNREADABLE', `${err.path}: ${err.message}`);
    throw err;
  }
}
