import { test } from 'node:test';
import assert from 'node:assert/strict';
import { avatarDataUrl, initials } from '../../../src/features/users/avatar.ts';

test('initials: first and last word of the name, else of the e-mail; letters of any script', () => {
  assert.equal(initials('Grace Brewster Murray Hopper', 'grace@example.com'), 'GH');
  assert.equal(initials('ada', 'ada@example.com'), 'A');
  assert.equal(initials('  ', 'jean-luc.picard@example.com'), 'JP');
  assert.equal(initials('Élodie Ørsted', 'e@example.com'), 'ÉØ');
  assert.equal(initials('-- !!', '@example.com'), '?');
});

test('the generated picture is a stable SVG data URL whose text is escaped', () => {
  const user = { id: '6f1c2a9e-5b7d-4c1e-9a3f-2b8d7e6c5a41', name: '<script> &amp', email: 'x@example.com' };
  const url = avatarDataUrl(user);
  assert.equal(url, avatarDataUrl(user));
  const svg = Buffer.from(url.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString();
  assert.doesNotMatch(svg, /<script/);
  assert.match(svg, />&#60;&#38;<\/text>/);
});
