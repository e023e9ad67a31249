import { useSession } from './context';
import { KEY_BINDINGS } from './keys';

const label = (k: string): string => ({ ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc' })[k] ?? k;

/** The keys of the session view, from the same table the key handler reads. */
export function KeyHelp(): React.JSX.Element {
  const toggle = useSession((s) => s.toggleKeys);
  return (
    <section className="sv-keys" aria-label="Keys">
      <dl>
        {KEY_BINDINGS.map((b) => (
          <div key={b.help}>
            <dt>
              {b.keys.map((k) => (
                <kbd key={k}>{label(k)}</kbd>
              ))}
            </dt>
            <dd>{b.help}</dd>
          </div>
        ))}
      </dl>
      <button type="button" className="link" onClick={toggle}>
        close
      </button>
    </section>
  );
}
