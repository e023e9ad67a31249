import { stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';
import { JSON_VERSION } from '../present/json';
import { forensicsJson, renderForensics } from '../present/forensics';
import { branchSurvival } from '../session/forensics';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { formatFlag } from './formats';

/**
 * `palimpsest forensics <file> [--compaction ID] [--json] [--format F] [--session ID] [--branch B]`:
 * what each compaction's summary and kept tail preserved of the items it replaced — paths, commands,
 * identifiers, URLs, errors, numbers, the user's constraints, open tasks and decisions — and what it
 * lost, each lost anchor with the seq of the item it was said in. Deterministic; no model.
 */

export const FORENSICS_SPEC: Record<string, 'value' | 'boolean'> = {
  json: 'boolean',
  compaction: 'value',
  format: 'value',
  session: 'value',
  branch: 'value',
};

export async function forensicsCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('forensics takes one <file>');
  const session = await loadSession(path, { format: formatFlag(args), session: stringFlag(args, 'session') });
  try {
    const inspector = new SessionInspector(session);
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    if (!inspector.hasBranch(branch))
      throw new UsageError(`no branch "${branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
    const all = inspector.replay(branch).compactions;
    const wanted = stringFlag(args, 'compaction');
    if (wanted !== undefined && !all.some((c) => c.id === wanted))
      throw new UsageError(
        all.length === 0
          ? `no compaction "${wanted}" in ${path}: it has none`
          : `no compaction "${wanted}" in ${path}; compactions: ${all.map((c) => c.id).join(', ')}`,
      );
    const measured = (await branchSurvival(inspector, branch)).filter((c) => wanted === undefined || c.id === wanted);
    const skipped = (wanted === undefined ? all.length : 1) - measured.length;
    if (args.flags.has('json'))
      io.out(JSON.stringify({ palimpsest: JSON_VERSION, path, branch, ...forensicsJson(measured), unmeasured: skipped }, null, 2));
    else io.out(renderForensics(path, measured, skipped));
    return EXIT_CLEAN;
  } finally {
    await session.dispose();
  }
}
