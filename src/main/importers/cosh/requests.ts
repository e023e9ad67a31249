import type { JsonLine } from '../../reader/types';
import type { Branch } from './branches';
import type { CoshMachine } from './machine';
import type { ItemKind } from './parse';

/**
 * Requests are not in cosh's log (see ./machine.ts): one is inferred before each model output, a
 * new Assistant or ToolCall item after a non-output item (a UserCommand does not start a call).
 */

const OUTPUT: ReadonlySet<ItemKind> = new Set<ItemKind>(['Assistant', 'ToolCall']);

/** A model output: the call that produced it saw the surface as it is now. */
export function request(mc: CoshMachine, b: Branch, l: JsonLine, kind: ItemKind): void {
  if (OUTPUT.has(kind) && (b.lastNewKind === null || (!OUTPUT.has(b.lastNewKind) && b.lastNewKind !== 'UserCommand'))) {
    mc.emit({ kind: 'request', id: `req-${++mc.requestCount}`, purpose: 'agent' }, l, b.state.name);
  }
  b.lastNewKind = kind;
}
