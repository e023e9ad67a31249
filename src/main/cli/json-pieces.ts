/** Arrays longer than this are written a group of elements at a time. */
const GROUP = 1_000;

const pad = (depth: number): string => '  '.repeat(depth);

/** JSON.stringify(value, null, 2) of a value nested `depth` levels deep (its lines after the first indented). */
function nested(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  // A JSON text has no raw newline inside a string (they are escaped), so every newline is a line break.
  return depth === 0 ? text : text.replace(/\n/g, `\n${pad(depth)}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** JSON.stringify drops these as object members (and writes null for them in arrays). */
const dropped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * The text of `JSON.stringify(value, null, 2)`, as pieces of whole lines (each piece is one or more
 * lines without its final newline), so that a CLI can write the listing of a session with a hundred
 * thousand requests without ever holding it as one string. The top-level object's members and any
 * array longer than GROUP are split; everything else is stringified whole. For plain JSON data
 * (objects, arrays, strings, numbers, booleans, null): the same bytes, tested.
 */
export function* jsonPieces(value: unknown, depth = 0, tail = ''): Generator<string, void, void> {
  if (Array.isArray(value) && value.length > GROUP) {
    yield `[`;
    for (let i = 0; i < value.length; i += GROUP) {
      const lines: string[] = [];
      const end = Math.min(value.length, i + GROUP);
      for (let j = i; j < end; j++) {
        const v = value[j];
        lines.push(`${pad(depth + 1)}${dropped(v) ? 'null' : nested(v, depth + 1)}${j < value.length - 1 ? ',' : ''}`);
      }
      yield lines.join('\n');
    }
    yield `${pad(depth)}]${tail}`;
    return;
  }
  if (depth === 0 && isRecord(value)) {
    const keys = Object.keys(value).filter((k) => !dropped(value[k]));
    if (keys.length === 0) {
      yield `{}${tail}`;
      return;
    }
    yield '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = value[k];
      const comma = i < keys.length - 1 ? ',' : '';
      const head = `${pad(depth + 1)}${JSON.stringify(k)}: `;
      if (Array.isArray(v) && v.length > GROUP) {
        const inner = jsonPieces(v, depth + 1, comma);
        const first = inner.next();
        // The array's opening bracket goes on the member's line.
        yield `${head}${first.done ? '' : first.value}`;
        for (const piece of inner) yield piece;
      } else {
        yield `${head}${nested(v, depth + 1)}${comma}`;
      }
    }
    yield `${pad(depth)}}${tail}`;
    return;
  }
  yield `${nested(value, depth)}${tail}`;
}
