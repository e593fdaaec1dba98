import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchTerms, understand, type HistoryMessage } from '../../../src/lib/language/understand.ts';

/** The search terms of `message` read in the context of `history`, as the simulation run gets them. */
const termsOf = (message: string, history: HistoryMessage[]) => searchTerms(understand(message, history));

test('search terms are the content words of the message, then of the recent conversation', () => {
  assert.deepEqual(termsOf("What's Romney's plan for the jobs and the deficit?", []), ['romney', 'plan', 'jobs', 'deficit']);
  // A compound is also searched as the two words a transcript may write it as, and two words as one.
  assert.deepEqual(termsOf('How would you fix healthcare?', []), ['healthcare', 'fix', 'hea lthcare', 'heal thcare', 'healt hcare', 'health care']);
  assert.ok(termsOf('What about health care costs?', []).includes('healthcare'));
  const history = [
    { role: 'user' as const, text: 'Tell me about your marathon training.' },
    { role: 'assistant' as const, text: 'Training starts sixteen weeks out.' },
  ];
  const terms = termsOf('Why is that?', history);
  assert.deepEqual(new Set(terms.slice(0, 2)), new Set(['marathon', 'training']));
  assert.ok(!terms.includes('sixteen'), 'what she answered is not searched again: that only finds the same answer');
  for (const t of terms) assert.match(t, /^[\p{L}\p{N}]+$/u);
  const many = termsOf(Array.from({ length: 40 }, (_, i) => `topic${i}`).join(' '), []);
  assert.equal(many.length, 16);
  assert.deepEqual(termsOf('Is it, you know, like that?', []), []);
});

test('a message with a new content word is not a follow-up; one without is', () => {
  const history = [{ role: 'user' as const, text: 'What would you do about taxes for the middle class?' }, { role: 'assistant' as const, text: '…' }];
  for (const m of ['And what about the deficit?', 'Tell me about pizza.', 'What would you do to reduce the deficit?', 'What do they think about Medicare?']) assert.equal(understand(m, history).leansOnHistory, false, m);
  for (const m of ['Why?', 'Can you say more about that?', 'What do you mean?', 'Give me an example.', 'Why does that matter?', 'And how would you pay for it?', 'And what if they insist?']) assert.equal(understand(m, history).leansOnHistory, true, m);
  assert.equal(understand('Give me an example.', history).followUp, 'example');
  assert.equal(understand('Why?', history).followUp, 'why');
});

test('the names of the person do not make a greeting topical; the reading of the message does not depend on them otherwise', () => {
  assert.equal(understand('Hi Ada!', [], ['Ada', 'Lovelace']).social, 'greeting');
  assert.equal(understand('Hi Ada!', []).social, null, 'without her name, "Ada" is a topic');
  const history: HistoryMessage[] = [{ role: 'user', text: 'What would you do about taxes?' }, { role: 'assistant', text: '…' }];
  const withNames = understand('Why?', history, ['Ada']);
  const without = understand('Why?', history);
  assert.deepEqual(withNames.query, without.query);
  assert.deepEqual(searchTerms(withNames), searchTerms(without));
});
