import type { EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { Branch } from './branches';
import { todosOf } from './items';
import type { CoshMachine } from './machine';
import type { TodoValue } from './parse';

// The plan: a `todo` event whenever the plan or its binding (the item it follows) changes.

export function writeTodo(
  mc: CoshMachine,
  b: Branch,
  l: JsonLine,
  value: TodoValue,
  afterCosh: number | null | undefined,
  always: boolean,
): void {
  if (value === null && b.todoCanon === null) return;
  const todos = todosOf(value);
  let after: string | null | undefined;
  if (afterCosh === 0) after = null;
  else if (afterCosh !== undefined && afterCosh !== null) {
    const it = b.state.context?.byId.get(afterCosh);
    after = it ? it.canon : String(afterCosh);
  }
  const json = JSON.stringify({ todos, after: after === undefined ? '(unbound)' : after });
  if (!always && json === b.todoCanon) return;
  b.todoCanon = json;
  const e: EventOf<'todo'> = { kind: 'todo', todos };
  if (after !== undefined) e.after = after;
  mc.emit(e, l, b.state.name);
}
