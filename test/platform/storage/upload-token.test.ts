import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { InvalidUploadTokenError, signUploadToken, verifyUploadToken, type UploadClaims } from '../../../src/platform/storage/index.ts';

const SECRET = 'a-secret-of-at-least-32-characters!!';
const NOW = Date.UTC(2026, 0, 1);
const claims: UploadClaims = {
  artifactId: '7d0f5c1e-5f7c-4b8e-9f3a-2c1d0e9b8a7f',
  organizationId: 'b3a1c2d4-0000-4000-8000-000000000001',
  key: 'org/b3a1/mind/m1/7d0f',
  contentType: 'text/vtt',
  maxBytes: 25 * 1024 * 1024,
  expiresAt: NOW + 15 * 60_000,
};

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidUploadTokenError, String(err));
    return err.reason;
  }
  assert.fail('expected the token to be refused');
}

test('a signed token verifies back to the same claims, and is URL-safe', () => {
  const token = signUploadToken(claims, SECRET);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(verifyUploadToken(token, SECRET, NOW), claims);
  assert.equal(encodeURIComponent(token), token);
  // Deterministic: the same claims give the same token.
  assert.equal(signUploadToken({ ...claims }, SECRET), token);
});

test('a tampered payload is a bad signature', () => {
  const [, signature] = signUploadToken(claims, SECRET).split('.');
  for (const change of [{ maxBytes: 10 * 1024 ** 3 }, { contentType: 'application/pdf' }, { artifactId: 'someone-else' }, { expiresAt: NOW + 365 * 86_400_000 }]) {
    const forged = Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url');
    assert.equal(reasonOf(() => verifyUploadToken(`${forged}.${signature}`, SECRET, NOW)), 'bad signature', JSON.stringify(change));
  }
});

test('a tampered signature is a bad signature, however small the change', () => {
  const token = signUploadToken(claims, SECRET);
  const [payload, signature] = token.split('.') as [string, string];
  // Change every position in turn, the last character included (its spare bits must not be ignored).
  for (let i = 0; i < signature.length; i++) {
    const flipped = signature.slice(0, i) + (signature[i] === 'A' ? 'B' : 'A') + signature.slice(i + 1);
    assert.equal(reasonOf(() => verifyUploadToken(`${payload}.${flipped}`, SECRET, NOW)), 'bad signature', `position ${i}`);
  }
  assert.equal(reasonOf(() => verifyUploadToken(`${payload}.${signature.slice(0, -2)}`, SECRET, NOW)), 'bad signature');
  assert.equal(reasonOf(() => verifyUploadToken(`${payload}.${signature}AA`, SECRET, NOW)), 'bad signature');
});

test('a token signed with another secret is a bad signature', () => {
  const token = signUploadToken(claims, 'another-secret-of-32-characters-long');
  assert.equal(reasonOf(() => verifyUploadToken(token, SECRET, NOW)), 'bad signature');
});

test('a token is expired from expiresAt on, even with a valid signature', () => {
  const token = signUploadToken(claims, SECRET);
  assert.deepEqual(verifyUploadToken(token, SECRET, claims.expiresAt - 1), claims);
  assert.equal(reasonOf(() => verifyUploadToken(token, SECRET, claims.expiresAt)), 'expired');
  assert.equal(reasonOf(() => verifyUploadToken(token, SECRET, claims.expiresAt + 86_400_000)), 'expired');
});

test('garbage is malformed', () => {
  const token = signUploadToken(claims, SECRET);
  for (const garbage of ['', '.', 'abc', `${token}.extra`, token.replace('.', '!'), 'a b.c', `${token.split('.')[0]}.`]) {
    assert.equal(reasonOf(() => verifyUploadToken(garbage, SECRET, NOW)), 'malformed', JSON.stringify(garbage));
  }
});

test('a correctly signed payload with the wrong shape is malformed, not trusted', () => {
  // Only someone holding the secret could make these; the verifier still checks the fields.
  const badShapes = [{ ...claims, maxBytes: '100' }, { ...claims, artifactId: undefined }, [1, 2, 3], 'just a string', null];
  for (const shape of badShapes) {
    // Signed by hand, as the format is documented: base64url(JSON) "." base64url(HMAC-SHA256).
    const payload = Buffer.from(JSON.stringify(shape)).toString('base64url');
    const token = `${payload}.${createHmac('sha256', SECRET).update(payload).digest('base64url')}`;
    assert.equal(reasonOf(() => verifyUploadToken(token, SECRET, NOW)), 'malformed', JSON.stringify(shape));
  }
});

test('an empty secret is a programming error, not a token problem', () => {
  assert.throws(() => signUploadToken(claims, ''), /secret/);
  assert.throws(() => verifyUploadToken(signUploadToken(claims, SECRET), ''), /secret/);
});
