/**
 * Golden expectations per real transcript, stated by meaning: which subjects the topics must
 * name (each entry is a set of alternatives, any one of which must appear among the topic labels
 * and keywords), what the biggest topic is about, and who the mind is. Written from the
 * transcripts' own chapter lists, the podcasts' subjects and the debates' moderator questions,
 * not from the analyser's output.
 */
import type { FindingKind, FindingResult } from '../../../src/lib/analysis/index.ts';
import { debate, lenny, lex } from './transcripts.ts';

export interface Golden {
  name: string;
  /** The transcript, relative to the transcripts folder. */
  file: string;
  /** The mind's speaker label in that transcript. */
  mind: string;
  /** Each inner list: at least one of these words must occur in some topic label or keyword. */
  subjects: string[][];
  /**
   * Each inner list: at least one of these must occur in some topic's label — the subject is named
   * by its label, not only found among keywords under a word around it ("insurance" over Medicare,
   * health care and Obamacare, as an audit found).
   */
  labels?: string[][];
  /** Lone words that must not label any topic here (each seen as a label over more specific keywords). */
  notLabels?: string[];
  /** The largest topic (by share): one of `names` in its label or keywords, and a label that is none of `notLabel`. */
  top?: { names: string[]; notLabel?: string[] };
  /**
   * Claims the person makes in this conversation (read in the transcript), each of which some
   * finding must state: its statement matches `says`, with this kind and polarity when given.
   */
  claims?: { says: RegExp; kind?: FindingKind; polarity?: FindingResult['polarity'] }[];
}

export const GOLDEN: Golden[] = [
  {
    name: '2012 debate 1 (economy, domestic policy): Romney',
    file: debate('2012-10-03'),
    mind: 'W Mitt Romney',
    subjects: [['tax', 'taxes'], ['health care', 'health', 'obamacare', 'insurance'], ['medicare'], ['jobs', 'job', 'economy', 'energy']],
    labels: [['health care', 'medicare', 'obamacare'], ['tax', 'taxes']],
    claims: [{ says: /^Does not want to (cost|kill) jobs/, polarity: 'negative' }, { says: /^Does not believe in cutting our military/, kind: 'value', polarity: 'negative' }, { says: /education for all of our kids/, kind: 'value' }],
  },
  {
    name: '2012 debate 1: Obama',
    file: debate('2012-10-03'),
    mind: 'Barack H Obama',
    subjects: [['tax', 'taxes'], ['health care', 'health', 'insurance', 'obamacare'], ['medicare', 'voucher'], ['jobs', 'job', 'education', 'teachers', 'economy']],
    labels: [['health care', 'medicare', 'obamacare'], ['tax', 'taxes']],
    notLabels: ['insurance', 'revenue', 'reforms', 'government'],
    // The audit found this topic labelled "small businesses" while its keywords were all about taxes and the deficit.
    top: { names: ['tax', 'taxes', 'deficit'], notLabel: ['small businesses', 'small business'] },
    claims: [{ says: /invest in education and training/, kind: 'belief' }, { says: /we do best when the middle class is doing well/, kind: 'belief' }, { says: /^Wants to provide tax breaks for companies that are investing here/, kind: 'goal' }],
  },
  {
    name: '2012 debate 2 (town hall): Obama',
    file: debate('2012-10-16'),
    mind: 'Barack H Obama',
    subjects: [['tax', 'taxes'], ['jobs', 'job', 'economy', 'manufacturing'], ['energy', 'oil', 'gas', 'coal']],
    claims: [{ says: /^Was raised by a single mom/, kind: 'experience' }, { says: /^Believes in the Second Amendment/, kind: 'value' }, { says: /^Believes that the country succeeds, if they succeed$/, kind: 'belief' }],
  },
  {
    name: '2012 debate 3 (foreign policy): Romney',
    file: debate('2012-10-22'),
    mind: 'W Mitt Romney',
    subjects: [['iran', 'nuclear'], ['military', 'navy', 'ships'], ['china', 'trade']],
    labels: [['iran'], ['israel', 'pakistan', 'afghanistan', 'syria', 'middle east']],
    claims: [{ says: /^Is not going to wear rose-colored glasses/, polarity: 'negative' }, { says: /military (involved )?in Syria/, polarity: 'negative' }],
  },
  {
    name: '2016 debate 1: Trump',
    file: debate('2016-09-26'),
    mind: 'Donald J Trump',
    subjects: [['jobs', 'job', 'companies', 'trade', 'nafta'], ['tax', 'taxes', 'returns'], ['isis', 'nato', 'nuclear', 'iran']],
    claims: [{ says: /^Was against the war in Iraq/, kind: 'value', polarity: 'negative' }, { says: /^Does not believe that Hillary has the stamina/, polarity: 'negative' }],
  },
  {
    name: '2016 debate 1: Clinton',
    file: debate('2016-09-26'),
    mind: 'Hillary R Clinton',
    subjects: [['jobs', 'job', 'economy', 'wages'], ['tax', 'taxes', 'returns'], ['isis', 'nuclear', 'iran', 'nato', 'cyber']],
    claims: [{ says: /science is real/, kind: 'belief' }, { says: /wealthy and corporations paid their fair share/, kind: 'belief' }],
  },
  {
    name: 'Lex Fridman #393: Andrew Huberman on relationships',
    file: lex('393-andrew-huberman.txt'),
    mind: 'Andrew Huberman',
    // Chapters: relationships, sexual selection, fertility.
    subjects: [['relationship', 'relationships', 'romantic', 'partner', 'friendship'], ['sex', 'sexual', 'male', 'female'], ['fertility', 'ivf', 'sperm', 'offspring', 'fertilization']],
    labels: [['relationship', 'relationships', 'partner']],
    claims: [{ says: /^Does not think that we can rewire our deep preferences/, kind: 'belief', polarity: 'negative' }, { says: /therapy twice a week since they were a kid/, kind: 'experience' }, { says: /Rancid fan/, kind: 'preference' }],
  },
  {
    name: 'Lex Fridman #400: Elon Musk',
    file: lex('400-elon-musk.txt'),
    mind: 'Elon Musk',
    subjects: [['war', 'israel', 'gaza', 'hamas', 'ukraine'], ['ai', 'agi', 'grok', 'intelligence'], ['x', 'twitter', 'platform', 'community notes']],
    labels: [['ai', 'agi', 'grok'], ['war']],
    claims: [{ says: /^Their grandfather was in World War II/, kind: 'fact' }, { says: /careful in how we develop AI/, kind: 'belief' }],
  },
  {
    name: 'Lex Fridman #429: Paul Rosolie on the Amazon',
    file: lex('429-paul-rosolie.txt'),
    mind: 'Paul Rosolie',
    subjects: [['amazon', 'rainforest', 'jungle', 'forest'], ['caiman', 'anaconda', 'snake', 'jaguar'], ['ants', 'ant', 'species', 'animals']],
    labels: [['amazon', 'rainforest', 'jungle', 'forest'], ['caiman', 'anaconda', 'snake']],
    claims: [{ says: /^Would never risk dying in space/, kind: 'value', polarity: 'negative' }, { says: /^Loves the jungle at night/, kind: 'preference', polarity: 'positive' }],
  },
  {
    name: 'Lex Fridman #438: Neuralink team, Noland Arbaugh',
    file: lex('438-elon-musk-neuralink-team.txt'),
    mind: 'Noland Arbaugh',
    subjects: [['neuralink', 'implant', 'link', 'surgery', 'brain'], ['cursor', 'webgrid', 'game', 'games', 'computer']],
    labels: [['cursor', 'neuralink', 'webgrid', 'calibration']],
    claims: [{ says: /relaxed stress-free person/, kind: 'fact' }, { says: /^Was never afraid/, kind: 'experience' }],
  },
  {
    name: 'Lex Fridman #438: Neuralink team, DJ Seo',
    file: lex('438-elon-musk-neuralink-team.txt'),
    mind: 'DJ Seo',
    subjects: [['electrode', 'electrodes', 'threads', 'thread', 'neurons', 'brain'], ['robot', 'surgery', 'needle', 'implant', 'device']],
    claims: [{ says: /^Studied electrical engineering/, kind: 'experience' }],
  },
  {
    name: '2012 debate 2 (town hall): Romney',
    file: debate('2012-10-16'),
    mind: 'W Mitt Romney',
    subjects: [['tax', 'taxes'], ['jobs', 'job', 'economy', 'manufacturing'], ['energy', 'oil', 'gas', 'coal'], ['china', 'trade']],
  },
  {
    name: '2012 debate 3 (foreign policy): Obama',
    file: debate('2012-10-22'),
    mind: 'Barack H Obama',
    subjects: [['iran', 'nuclear'], ['military', 'troops', 'navy', 'ships', 'defense'], ['israel', 'middle east', 'afghanistan', 'iraq', 'libya', 'syria']],
    labels: [['iran'], ['iraq', 'afghanistan', 'israel', 'libya', 'syria']],
    claims: [{ says: /America has to stand with democracy/, kind: 'belief' }],
  },
  {
    name: '2016 debate 2 (town hall): Clinton',
    file: debate('2016-10-09'),
    mind: 'Hillary R Clinton',
    subjects: [['supreme court', 'justices', 'justice'], ['health', 'insurance', 'affordable care', 'obamacare'], ['syria', 'isis', 'iraq', 'russia', 'aleppo'], ['tax', 'taxes']],
    labels: [['health', 'insurance', 'affordable care', 'obamacare'], ['supreme court']],
    claims: [{ says: /worked with a lot of Muslim groups/, kind: 'experience' }, { says: /tax on people who are making a million dollars/, kind: 'goal' }],
  },
  {
    name: '2016 debate 2 (town hall): Trump',
    file: debate('2016-10-09'),
    mind: 'Donald J Trump',
    subjects: [['obamacare', 'health', 'insurance'], ['syria', 'isis', 'russia', 'aleppo', 'iraq'], ['emails', 'e-mails', 'email', 'server', 'tape', 'bill clinton']],
    labels: [['obamacare', 'health'], ['isis', 'syria', 'russia', 'aleppo', 'iraq']],
  },
  {
    name: '2016 debate 3: Clinton',
    file: debate('2016-10-19'),
    mind: 'Hillary R Clinton',
    subjects: [['supreme court', 'roe', 'amendment', 'guns', 'justices'], ['russia', 'putin', 'espionage', 'election'], ['syria', 'isis', 'mosul', 'iraq'], ['tax', 'taxes', 'debt', 'economy']],
    claims: [{ says: /^Does not want to rip families apart/, polarity: 'negative' }, { says: /^Will not support putting American soldiers into Iraq/, polarity: 'negative' }],
  },
  {
    name: '2016 debate 3: Trump',
    file: debate('2016-10-19'),
    mind: 'Donald J Trump',
    subjects: [['borders', 'border', 'immigration', 'amnesty'], ['supreme court', 'justices', 'amendment'], ['mosul', 'iraq', 'iran', 'isis'], ['trade', 'nafta']],
    labels: [['borders', 'border', 'immigration'], ['trade', 'nafta']],
    claims: [{ says: /supporter of the Second Amendment/, kind: 'value', polarity: 'positive' }, { says: /^Wants to build the wall/, kind: 'goal' }],
  },
  {
    name: 'Lex Fridman #435: Andrew Huberman (focus, controversy, politics, relationships)',
    file: lex('435-andrew-huberman.txt'),
    mind: 'Andrew Huberman',
    // Chapters: cannabis, supplements, nicotine, caffeine, great white sharks, ayahuasca & psychedelics, relationships.
    subjects: [['cannabis', 'caffeine', 'nicotine', 'supplements', 'peptides', 'ibogaine', 'ayahuasca'], ['sharks', 'shark', 'white sharks'], ['science', 'scientists', 'neuroscience', 'health']],
    labels: [['sharks', 'shark', 'white sharks']],
  },
  {
    name: 'Lex Fridman #489: Paul Rosolie (uncontacted tribes in the Amazon)',
    file: lex('489-paul-rosolie.txt'),
    mind: 'Paul Rosolie',
    // Chapters: uncontacted tribes, the jungle, Jane Goodall, cartels, the giant tree, giant anaconda, spider monkey.
    subjects: [['tribes', 'tribe', 'uncontacted', 'warrior', 'warriors'], ['jungle', 'amazon', 'forest', 'rainforest', 'tree'], ['anaconda', 'snake', 'monkey', 'spider monkey', 'jaguar'], ['jane goodall', 'jane', 'narcos', 'police', 'cartel']],
    labels: [['jungle', 'amazon', 'forest', 'rainforest', 'tree', 'river'], ['tribes', 'tribe', 'uncontacted']],
  },
  {
    name: "Lenny's Podcast: Bob Moesta (Jobs to Be Done, demand-side sales)",
    file: lenny('bob-moesta'),
    mind: 'Bob Moesta',
    // Jobs to Be Done (co-created with Clay Christensen): the progress people try to make, struggling moments, switch interviews.
    subjects: [['jobs', 'progress', 'struggling', 'struggle'], ['interviews', 'interview'], ['clay', 'christensen', 'mentors', 'book']],
    labels: [['jobs', 'progress', 'struggling']],
    claims: [{ says: /^Wrote a book called Demand Side Sales/, kind: 'experience' }, { says: /adjunct lecturer at the Kellogg School/, kind: 'fact' }],
  },
  {
    name: "Lenny's Podcast: Jen Abel (founder-led enterprise sales)",
    file: lenny('jen-abel'),
    mind: 'Jen Abel',
    subjects: [['sales', 'enterprise sales', 'selling', 'salesperson'], ['founder', 'founders', 'startup', 'early stage startup'], ['procurement', 'buyer', 'buyers', 'contract', 'deal']],
    labels: [['sales', 'enterprise sales'], ['procurement', 'buyer', 'contract']],
    top: { names: ['sales', 'selling', 'founder', 'founders'] },
    claims: [{ says: /^Does not think that people realize how much of a competitive advantage the founder led sales motion is/, kind: 'belief', polarity: 'negative' }, { says: /career in enterprise sales/, kind: 'experience' }],
  },
  {
    name: "Lenny's Podcast: Sander Schulhoff (prompt engineering, prompt injection)",
    file: lenny('sander-schulhoff'),
    mind: 'Sander Schulhoff',
    subjects: [['prompt', 'prompting', 'prompt engineering'], ['injection', 'prompt injection', 'jailbreak', 'jailbreaking', 'red teaming', 'security'], ['ai', 'llm', 'chatgpt', 'models']],
    labels: [['prompt engineering', 'prompt injection', 'prompting']],
  },
];
