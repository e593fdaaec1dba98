import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../../../src/features/minds/slug.ts';

test('Latin names lose their accents; other scripts keep their letters', () => {
  const cases: [string, string][] = [
    ["Zoë O'Brien-Smith", 'zoe-obrien-smith'],
    ['Ådne Łukasz Ñúñez', 'adne-łukasz-nunez'],
    ['ﬁnn', 'finn'],
    ['Владимир Путин', 'владимир-путин'],
    ['Андрей Йорданов', 'андрей-йорданов'],
    ['毛泽东', '毛泽东'],
    ['김정은', '김정은'],
    ['नरेंद्र मोदी', 'नरेंद्र-मोदी'],
    ['محمد بن سلمان', 'محمد-بن-سلمان'],
    ['Αλέξανδρος', 'αλέξανδρος'],
    ['Agent 007', 'agent-007'],
    ['🙂 !!!', 'mind'],
  ];
  for (const [name, slug] of cases) assert.equal(slugify(name), slug, name);
});

test('slugs are at most 60 characters and never split a character', () => {
  assert.equal(slugify('a'.repeat(100)).length, 60);
  const long = slugify('𝒜'.repeat(70)); // mathematical script A, NFKD → "A"
  assert.equal(long, 'a'.repeat(60));
  const emoji = slugify('毛'.repeat(59) + '𠀀𠀀');
  assert.equal(Array.from(emoji).length, 60);
  assert.ok(!/[\ud800-\udbff]$/.test(emoji));
});
