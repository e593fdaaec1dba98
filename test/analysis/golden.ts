/**
 * Golden expectations per real transcript, stated by meaning: which subjects the topics must
 * name (each entry is a set of alternatives, any one of which must appear among the topic labels
 * and keywords), and who the mind is. Written from the transcripts' own chapter lists and the
 * debates' moderator questions, not from the analyser's output.
 */
import { debate, lex } from './transcripts.ts';

export interface Golden {
  name: string;
  /** The transcript, relative to the transcripts folder. */
  file: string;
  /** The mind's speaker label in that transcript. */
  mind: string;
  /** Each inner list: at least one of these words must occur in some topic label or keyword. */
  subjects: string[][];
}

export const GOLDEN: Golden[] = [
  {
    name: '2012 debate 1 (economy, domestic policy): Romney',
    file: debate('2012-10-03'),
    mind: 'W Mitt Romney',
    subjects: [['tax', 'taxes'], ['health care', 'health', 'obamacare', 'insurance'], ['medicare'], ['jobs', 'job', 'economy', 'energy']],
  },
  {
    name: '2012 debate 1: Obama',
    file: debate('2012-10-03'),
    mind: 'Barack H Obama',
    subjects: [['tax', 'taxes'], ['health care', 'health', 'insurance', 'obamacare'], ['medicare', 'voucher'], ['jobs', 'job', 'education', 'teachers', 'economy']],
  },
  {
    name: '2012 debate 2 (town hall): Obama',
    file: debate('2012-10-16'),
    mind: 'Barack H Obama',
    subjects: [['tax', 'taxes'], ['jobs', 'job', 'economy', 'manufacturing'], ['energy', 'oil', 'gas', 'coal']],
  },
  {
    name: '2012 debate 3 (foreign policy): Romney',
    file: debate('2012-10-22'),
    mind: 'W Mitt Romney',
    subjects: [['iran', 'nuclear'], ['military', 'navy', 'ships'], ['china', 'trade']],
  },
  {
    name: '2016 debate 1: Trump',
    file: debate('2016-09-26'),
    mind: 'Donald J Trump',
    subjects: [['jobs', 'job', 'companies', 'trade', 'nafta'], ['tax', 'taxes', 'returns'], ['isis', 'nato', 'nuclear', 'iran']],
  },
  {
    name: '2016 debate 1: Clinton',
    file: debate('2016-09-26'),
    mind: 'Hillary R Clinton',
    subjects: [['jobs', 'job', 'economy', 'wages'], ['tax', 'taxes', 'returns'], ['isis', 'nuclear', 'iran', 'nato', 'cyber']],
  },
  {
    name: 'Lex Fridman #393: Andrew Huberman on relationships',
    file: lex('393-andrew-huberman.txt'),
    mind: 'Andrew Huberman',
    // Chapters: relationships, sexual selection, fertility.
    subjects: [['relationship', 'relationships', 'romantic', 'partner', 'friendship'], ['sex', 'sexual', 'male', 'female'], ['fertility', 'ivf', 'sperm', 'offspring', 'fertilization']],
  },
  {
    name: 'Lex Fridman #400: Elon Musk',
    file: lex('400-elon-musk.txt'),
    mind: 'Elon Musk',
    subjects: [['war', 'israel', 'gaza', 'hamas', 'ukraine'], ['ai', 'agi', 'grok', 'intelligence'], ['x', 'twitter', 'platform', 'community notes']],
  },
  {
    name: 'Lex Fridman #429: Paul Rosolie on the Amazon',
    file: lex('429-paul-rosolie.txt'),
    mind: 'Paul Rosolie',
    subjects: [['amazon', 'rainforest', 'jungle', 'forest'], ['caiman', 'anaconda', 'snake', 'jaguar'], ['ants', 'ant', 'species', 'animals']],
  },
  {
    name: 'Lex Fridman #438: Neuralink team, Noland Arbaugh',
    file: lex('438-elon-musk-neuralink-team.txt'),
    mind: 'Noland Arbaugh',
    subjects: [['neuralink', 'implant', 'link', 'surgery', 'brain'], ['cursor', 'webgrid', 'game', 'games', 'computer']],
  },
  {
    name: 'Lex Fridman #438: Neuralink team, DJ Seo',
    file: lex('438-elon-musk-neuralink-team.txt'),
    mind: 'DJ Seo',
    subjects: [['electrode', 'electrodes', 'threads', 'thread', 'neurons', 'brain'], ['robot', 'surgery', 'needle', 'implant', 'device']],
  },
];
