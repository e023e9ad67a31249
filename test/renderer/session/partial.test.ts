import { describe, expect, it } from 'vitest';
import { loadingText, shownText } from '../../../src/renderer/session/partial';

const base = { read: 4_200_000, total: 100_000_000, done: 12_000_000, of: 100_000_000, error: null };

describe("a first view's banner", () => {
  it('says how far the load of the whole has got, in each phase', () => {
    expect(loadingText({ ...base, phase: 'reading' })).toBe('Loading — 12 MB of 100 MB read.');
    expect(loadingText({ ...base, phase: 'replaying', done: 250, of: 1000 })).toBe('Loading — read; replaying 25 % of 1,000 events.');
    expect(loadingText({ ...base, phase: 'checking', done: 3, of: 40 })).toBe('Loading — read and replayed; checking.');
    expect(loadingText({ ...base, phase: 'failed', error: 'EIO' })).toBe('The rest of the session could not be read (EIO).');
  });

  it('says what is shown, and that its counts and findings are not the whole', () => {
    expect(shownText({ ...base, phase: 'reading' }, 1234)).toBe(
      'Shown so far: the first 4.2 MB of 100 MB (1,234 requests); counts and token totals cover that part, and findings are withheld until the whole session is in.',
    );
    expect(shownText({ ...base, phase: 'failed', error: 'EIO' }, 5)).toContain(
      'only; counts and token totals cover that part, and findings were not worked out.',
    );
  });
});
