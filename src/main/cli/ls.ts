import { LS_SPEC, LsUsageError, runLs } from './ls-command';
import { UsageError, type ParsedArgs } from '../command/args';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';

/**
 * `palimpsest ls [--harness H[,H…]] [--root H=PATH]… [--json] [--no-cache]`: the local sessions
 * of every harness — harness, project, start time, size, requests, compactions, path — from each
 * harness's default folder and the environment's overrides (CLAUDE_CONFIG_DIR, CODEX_HOME,
 * DSH_HOME, RIND_HOME, COSH_DATA_DIR), summarised by a fast scan and kept in the session index
 * (src/main/catalog/list.ts). Bad usage throws UsageError (exit 2 by runCli); everything else exits 0,
 * with what could not be read on stderr.
 */
export { LS_SPEC };

export async function lsCommand(args: ParsedArgs, io: Io): Promise<number> {
  try {
    return await runLs(args, io, EXIT_CLEAN);
  } catch (e) {
    if (e instanceof LsUsageError) throw new UsageError(e.message);
    throw e;
  }
}
