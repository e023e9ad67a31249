/**
 * The web host's access token, as this tab knows it. `palimpsest serve` prints a URL whose fragment
 * carries it (`/#token=…`): a fragment is never sent in a request, and the page moves it into
 * sessionStorage, which belongs to this origin alone (port included) and this tab, then takes it
 * out of the address bar and the history entry. No cookie is ever used: a cookie set for
 * 127.0.0.1 would also be sent to every other service listening on that address.
 */

const KEY = 'palimpsest.hostToken';

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

/** Takes a `#token=…` fragment into this tab's storage (once, at start); returns the token known, if any. */
export function adoptHostToken(loc: Location = window.location, hist: History = window.history): string | null {
  const m = /^#(?:.*&)?token=([^&]+)/.exec(loc.hash);
  let token: string | null = null;
  if (m?.[1]) {
    try {
      token = decodeURIComponent(m[1]);
    } catch {
      token = null;
    }
    // The fragment goes whatever it held: the address bar is for sharing, the token is not.
    hist.replaceState(hist.state, '', `${loc.pathname}${loc.search}`);
  }
  const store = storage();
  if (token !== null) store?.setItem(KEY, token);
  return token ?? store?.getItem(KEY) ?? null;
}
