/**
 * Conversations with real people (the 2012 debates for Barack Obama, Lex Fridman #400 for Elon
 * Musk, Lenny's Podcast for Bob Moesta), parsed by the service's parser, with each answer's
 * evidence fed back as history the way the service does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentStems, sentences, understand } from '../../../src/engines/extractive/index.ts';
import { quotesBalanced } from '../../../src/lib/language/text.ts';
import type { EngineResult } from '../../../src/engines/types.ts';
import { converse, elon, moesta, obama2012, type RealMind } from './real.ts';
import { hasSharedData, skipUnlessSharedData } from '../../support/shared-data.ts';

// Obama from the debate excerpts of test/fixtures; the podcasts (../shared/data) only where they are, else their tests skip.
const [obama, musk, bob] = (await Promise.all([obama2012(), hasSharedData ? elon() : null, hasSharedData ? moesta() : null])) as RealMind[];

/** The sentences an answer quoted, as written. */
const quoted = (r: EngineResult) => new Set(r.evidence.flatMap((e) => sentences(e.quote).map((s) => s.text)));
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

test('follow-ups bring new evidence: "why", "say more", "what do you mean", "an example" never repeat what was said', async () => {
  const messages = ['What would you do about taxes for the middle class?', 'Why?', 'Can you say more about that?', 'What do you mean?', 'Give me an example.'];
  const answers = await converse(obama, messages);
  const said = new Set<string>();
  answers.forEach((r, i) => {
    assert.ok(r.evidence.length > 0, `"${messages[i]}" is answered from memory: ${r.text}`);
    for (const s of quoted(r)) {
      assert.ok(!said.has(s), `"${messages[i]}" repeats "${s}"`);
    }
    for (const s of quoted(r)) said.add(s);
    // Still on the topic of the conversation: taxes for the middle class (said in the passage, or
    // in the reply it comes from, as for an example of what budget choices mean).
    const sources = r.evidence.map((e) => obama.memory.find((t) => t.turnId === e.turnId)!.text).join(' ');
    assert.match(`${r.text} ${sources}`, /tax|middle.class/i, `"${messages[i]}" stays on taxes for the middle class: ${r.text}`);
  });
});

test('asked for an example, Bob Moesta gives one, not his definition again', skipUnlessSharedData, async () => {
  const [definition, example] = await converse(bob, ['What is jobs to be done?', 'Can you give me an example?']);
  const first = quoted(definition!);
  const overlap = [...quoted(example!)].filter((s) => first.has(s));
  assert.deepEqual(overlap, [], 'no sentence of the definition again');
  assert.ok(example!.evidence.length > 0);
  // An example names a case: a story, a product, numbers.
  assert.match(example!.text, /example|when|\d|HubSpot|Zendesk|Snickers|interview|I remember|people who/i, example!.text);
});

test('a topic change in a conversation gets its own answer, not the previous one', async () => {
  const [taxes, deficit, reduce, pizza] = await converse(obama, ['What would you do about taxes for the middle class?', 'And what about the deficit?', 'What would you do to reduce the deficit?', 'Tell me about pizza.']);
  for (const [r, name] of [[deficit!, 'deficit'], [reduce!, 'reduce the deficit']] as const) {
    assert.match(r.evidence[0]!.quote, /deficit/i, `"${name}" leads with the deficit: ${r.text}`);
    assert.ok(r.evidence.some((e) => !taxes!.evidence.some((t) => t.turnId === e.turnId && t.quote === e.quote)), `"${name}" is not the taxes answer`);
  }
  assert.deepEqual([...quoted(reduce!)].filter((s) => quoted(deficit!).has(s)), [], 'the second deficit question adds to the first');
  assert.deepEqual(pizza!.evidence, [], 'pizza was never discussed');
  assert.match(pizza!.text, /^I haven't really talked about pizza/);
});

test('compounds written apart are found: "healthcare" reaches the debates\' "health care"', async () => {
  const [r] = await converse(obama, ['How would you fix healthcare?']);
  assert.ok(r!.evidence.length > 0, r!.text);
  assert.match(r!.evidence[0]!.quote, /health care/i);
  assert.doesNotMatch(r!.text, /haven't really talked/);
});

test('"taxes and pizza": the covered part is answered, only the uncovered part is named', async () => {
  const [r] = await converse(obama, ['What do you think about taxes and pizza?']);
  assert.match(r!.evidence[0]!.quote, /tax/i);
  assert.match(r!.text, /I haven't really talked about pizza, though\.$/);
  assert.doesNotMatch(r!.text, /talked about taxes/);
});

test('one rare word does not decide: "your mother", a preamble about Chicago, "for a living"', skipUnlessSharedData, async () => {
  const [mother, chicago] = await converse(obama, ['Tell me about your mother', 'As a former community organizer in Chicago, what do you think about taxes?']);
  // The debates mention a mother at a bedside, not his own: that is not an answer about his mother.
  assert.ok(mother!.evidence.every((e) => /\b(my|our) (\S+ )?mother/i.test(e.quote)), mother!.text);
  assert.match(mother!.text, /my mother/);
  assert.match(chicago!.evidence[0]!.quote, /tax/i, 'the main ask (taxes) outweighs the preamble (Chicago)');
  assert.doesNotMatch(chicago!.text, /violence/);

  const [living] = await converse(musk, ['What do you do for a living?']);
  assert.doesNotMatch(living!.text, /better to live in a world/, 'an idiom about work, not the word "live"');
});

test('greetings and "who are you?" get a short reply in their own words, not "I haven\'t talked about that"', skipUnlessSharedData, async () => {
  for (const mind of [obama, bob, musk]) {
    const [hello, who] = await converse(mind, ['Hello!', 'Who are you?']);
    for (const r of [hello!, who!]) {
      assert.doesNotMatch(r.text, /haven't really talked|have not spoken/, `${mind.name}: ${r.text}`);
      assert.ok(words(r.text) <= 80, `${mind.name} keeps it short: ${r.text}`);
      for (const e of r.evidence) assert.ok(mind.memory.some((t) => t.turnId === e.turnId && t.text.includes(e.quote)));
    }
  }
  const [hi] = await converse(bob, ['Hi Bob!']);
  assert.match(hi!.text, /I'm an engineer|to be here/, hi!.text);
});

test('answers read like a reply: no sentence addressed to a moderator, cut off, unbalanced or too short', async () => {
  const questions = [
    'What would you do about taxes for the middle class?',
    'What is your plan for Medicare?',
    'What about jobs and the economy?',
    'How would you handle China?',
    'What do you think about immigration?',
    'What is your view on guns and violence?',
    'What about Libya?',
    'What about energy and gas prices?',
    'How would you make college affordable?',
    'What is the role of government?',
  ];
  const vocative = /(^|, )(Jim|Candy|Bob|Governor Romney|Governor|Mr\. President|Lehrer|Crowley|Schieffer)(,|\?|\.$| -)/;
  for (const q of questions) {
    const [r] = await converse(obama, [q]);
    assert.ok(r!.evidence.length > 0, q);
    const spans = r!.evidence.flatMap((e) => sentences(e.quote).map((s) => s.text));
    for (const s of spans) {
      assert.doesNotMatch(s, vocative, `${q}: addressed to someone in the debate: "${s}"`);
      assert.doesNotMatch(s, /[-\u2013\u2014]\s*["']?$/, `${q}: cut off: "${s}"`);
      assert.ok(quotesBalanced(s), `${q}: unbalanced quotes: "${s}"`);
    }
    // A passage is said as it was ("No. I think…" inside it), but neither opens nor ends on a fragment.
    for (const e of r!.evidence) {
      const own = sentences(e.quote);
      for (const s of [own[0]!, own.at(-1)!]) assert.ok(words(s.text) >= 4, `${q}: a passage opens or ends on a fragment: "${s.text}"`);
    }
    // It opens with a sentence about what was asked.
    const asked = new Set(understand(q, []).query.map((t) => t.stem));
    assert.ok(contentStems(spans[0]!).some((s) => asked.has(s)), `${q}: opens off topic: "${spans[0]}"`);
  }
});

test('"I haven\'t talked about that" names what was asked as it was written: noun phrases, capitals kept', async () => {
  const [topping, physics] = await converse(obama, ['What is your favourite pizza topping?', 'What do you think about Quantum Chromodynamics?']);
  assert.match(topping!.text, /^I haven't really talked about my favourite pizza topping, so/);
  assert.match(physics!.text, /^I haven't really talked about Quantum Chromodynamics, so/);
  for (const r of [topping!, physics!]) assert.doesNotMatch(r.text, /about (fix|think|favourite, pizza)/);
});

test('the analysis changes with the question and rests on the evidence', async () => {
  const [taxes] = await converse(obama, ['What would you do about taxes for the middle class?']);
  const [iran] = await converse(obama, ['What would you do about Iran?']);
  for (const key of ['thinking', 'feeling', 'saying', 'acting'] as const) assert.notEqual(taxes!.analysis[key], iran!.analysis[key], key);
  for (const [r, topic] of [[taxes!, /tax/i], [iran!, /Iran/]] as const) {
    const evidence = r.evidence.map((e) => e.quote).join(' ');
    // "saying" is the gist: a sentence of the evidence, on what was asked.
    const gist = /"(.*?)(?: …)?"\.?$/.exec(r.analysis.saying)?.[1];
    assert.ok(gist && evidence.includes(gist), r.analysis.saying);
    assert.match(r.analysis.saying, topic);
    assert.doesNotMatch(r.analysis.saying, /earlier turns|own words/, 'the gist, not the method');
    assert.doesNotMatch(r.analysis.acting, /words a turn/, 'not a style line that is the same for every question');
    // Quoted parts of thinking and acting are the person's words.
    for (const q of [...r.analysis.thinking.matchAll(/"(.*?)(?: …)?"/g), ...r.analysis.acting.matchAll(/"(.*?)(?: …)?"/g)]) {
      if (q[1]!.length > 15) assert.ok(evidence.includes(q[1]!), `"${q[1]}" is in the evidence`);
    }
  }
  assert.doesNotMatch(taxes!.analysis.thinking, /On taxes, middle, class/, 'phrases are kept whole');
  assert.doesNotMatch(taxes!.analysis.feeling, /"like"|"deficit"|"competitive"/, 'filler and topic words are not feelings');
});
