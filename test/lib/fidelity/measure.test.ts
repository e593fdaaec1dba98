import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentStems } from '../../../src/lib/language/text.ts';
import { cosine, oracleTurn, personaWin, setFidelity, specificity, tfidfSpace, tfidfTop1, vectorOf } from '../../../src/lib/fidelity/measure.ts';

// A small memory: a person who talks about pricing, hiring and their morning.
const MEMORY = [
  'Price the first enterprise deal between fifty and two hundred thousand dollars of annual contract value.',
  'When I hire, I look for people who have sold to enterprises before, and I check references twice.',
  'I wake up, I look at the sun, I drink water and I walk the dog before any screen.',
  'I think people underestimate how much the first customers teach you about the product.',
  'Discounts on the first contract are fine if the customer commits to a case study.',
];
const space = tfidfSpace(MEMORY, contentStems);

const ITEMS = [
  { question: 'How should I price the first enterprise contract?', real: 'Anywhere between fifty and two hundred thousand dollars of contract value for the first enterprise deal.' },
  { question: 'What does your morning look like?', real: 'I wake up early, get sunlight in my eyes and walk the dog.' },
  { question: 'How do you hire salespeople?', real: 'I hire people who sold to enterprises before and I call their references.' },
];

test('vectors are unit length, and a rare stem weighs more than a common one', () => {
  const v = vectorOf(space, 'enterprise sun');
  const norm = Math.sqrt([...v.values()].reduce((a, w) => a + w * w, 0));
  assert.ok(Math.abs(norm - 1) < 1e-9);
  assert.ok(v.get('sun')! > v.get('enterpris')!, 'sun is in one turn, enterprise in two');
  assert.equal(vectorOf(space, 'the and of').size, 0, 'no content word: empty vector');
  assert.equal(cosine(vectorOf(space, 'the'), vectorOf(space, 'sun')), 0);
});

test('the right answer is specific (AUC 1), one about another question is below chance, an empty one is 0.5', () => {
  const others = ITEMS.slice(1).map((i) => i.real);
  assert.equal(specificity(space, MEMORY[0]!, ITEMS[0]!.real, others), 1);
  // The morning turn is closer to the morning answer (a loss) and as far from the pricing and hiring answers (a tie).
  assert.equal(specificity(space, MEMORY[2]!, ITEMS[0]!.real, others), 0.25);
  assert.equal(specificity(space, 'Well, yes.', ITEMS[0]!.real, others), 0.5, 'ties count half');
  assert.equal(specificity(space, MEMORY[0]!, ITEMS[0]!.real, []), null, 'no other answer: nothing to rank against');
});

test('beyond the question: echoing the question back is specific only through the question\'s words', () => {
  const echo = ITEMS.map((i) => ({ ...i, simulated: i.question }));
  const f = setFidelity(space, echo);
  assert.ok(f.every((x) => x.beyond === 0.5), 'the question\'s words removed, an echo says nothing');
  const right = setFidelity(space, ITEMS.map((i, k) => ({ ...i, simulated: MEMORY[[0, 2, 1][k]!]! })));
  assert.ok(right.every((x) => x.specificity === 1 && x.beyond === 1), 'the person\'s own answers stay specific beyond the question');
});

test('persona win: the closer answer wins, a tie counts half', () => {
  assert.equal(personaWin(space, MEMORY[0]!, 'We need to cut taxes for the middle class.', ITEMS[0]!.real), 1);
  assert.equal(personaWin(space, 'We need to cut taxes.', MEMORY[0]!, ITEMS[0]!.real), 0);
  assert.equal(personaWin(space, 'Yes.', 'No.', ITEMS[0]!.real), 0.5);
});

test('baselines: TF-IDF top-1 of the question, and the oracle chosen knowing the answer', () => {
  assert.equal(tfidfTop1(space, 'What is your morning routine when you wake up?', MEMORY), MEMORY[2]);
  assert.equal(tfidfTop1(space, 'Quantum chromodynamics?', MEMORY), '', 'nothing shares a word');
  assert.equal(oracleTurn(space, ITEMS[2]!.real, MEMORY), MEMORY[1]);
});
