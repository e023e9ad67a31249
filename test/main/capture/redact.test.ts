import { describe, expect, it } from 'vitest';
import { fingerprint, redactHeaders, redactPath } from '../../../src/main/capture/redact';

describe('redaction of foreign captures', () => {
  it('replaces credential header values by a fingerprint that tells values apart', () => {
    const out = redactHeaders([
      ['Authorization', 'Bearer sk-one'],
      ['x-api-key', 'sk-ant-api...Z9xQ'],
      ['Cookie', 'a=b'],
      ['content-type', 'application/json'],
    ]);
    expect(out[0]?.[1]).toMatch(/^\[redacted sha256:[0-9a-f]{8}\]$/);
    expect(out[1]?.[1]).toMatch(/^\[redacted sha256:[0-9a-f]{8}\]$/);
    expect(out[2]?.[1]).toMatch(/^\[redacted sha256:[0-9a-f]{8}\]$/);
    expect(out[3]).toEqual(['content-type', 'application/json']);
    expect(fingerprint('Bearer sk-one')).not.toBe(fingerprint('Bearer sk-two'));
    expect(JSON.stringify(out)).not.toContain('sk-');
  });

  it('keeps a value that already is a fingerprint', () => {
    expect(fingerprint('[redacted sha256:0123abcd]')).toBe('[redacted sha256:0123abcd]');
  });

  it('fingerprints a key query parameter', () => {
    expect(redactPath('/v1beta/models/g:generateContent?alt=sse&key=AIzaSECRET')).toBe(
      `/v1beta/models/g:generateContent?alt=sse&key=${fingerprint('AIzaSECRET')}`,
    );
  });
});
