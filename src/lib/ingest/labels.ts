/**
 * What may count as a speaker label. Transcripts mark speakers with `Name:` prefixes, but so does
 * ordinary prose ("Note: …", "Step 1: …", "The answer is: …"). A candidate must first look like a
 * label (short, capitalised words, no sentence words), then earn its place by recurring or by
 * looking like a person or a role.
 */

/** Words that begin a label-like prefix in prose or document furniture, never a speaker. */
const NOT_SPEAKER_WORDS = new Set([
  'note', 'notes', 'nb', 'ps', 'pps', 'step', 'steps', 'example', 'examples', 'warning', 'caution', 'tip', 'tips',
  'important', 'update', 'updated', 'edit', 'edited', 'summary', 'tldr', 'takeaway', 'takeaways', 'item', 'items',
  'fact', 'facts', 'point', 'points', 'line', 'lines', 'conclusion', 'result', 'results', 'overview', 'agenda',
  'date', 'time', 'location', 'place', 'venue', 'subject', 'title', 'chapter', 'section', 'part', 'figure', 'fig',
  'table', 'appendix', 'reference', 'references', 'source', 'sources', 'disclaimer', 'copyright', 'goal', 'goals',
  'objective', 'objectives', 'action', 'actions', 'todo', 'decision', 'decisions', 'status', 'price', 'cost',
  'total', 'definition', 'rule', 'rules', 'tag', 'tags', 'keywords', 'category', 'version', 'link', 'links', 'url',
  'email', 'phone', 'tel', 'fax', 'address', 'website', 'page', 'pages', 'duration', 'published', 'posted',
  'episode', 'season', 'transcript', 'attendees', 'participants', 're', 'fwd', 'cc', 'bcc', 'from', 'to', 'sent',
  'https', 'http', 'www', 'lesson', 'exercise', 'problem', 'solution', 'hint', 'proof', 'theorem', 'lemma',
  'case', 'option', 'options', 'reason', 'reasons', 'bonus', 'update', 'remember', 'fun', 'key', 'bottom', 'main',
  'next', 'previously', 'meanwhile', 'later', 'caption', 'photo', 'image', 'video', 'audio', 'quote', 'translation',
]);

/** Sentence words: a label containing one is a clause ("So the answer is:"), not a name. */
const FUNCTION_WORDS = new Set([
  'a', 'an', 'the', 'of', 'and', 'or', 'but', 'in', 'on', 'at', 'for', 'with', 'by', 'as', 'is', 'are', 'was',
  'were', 'be', 'this', 'that', 'these', 'those', 'it', 'its', 'we', 'you', 'he', 'she', 'they', 'i', 'my', 'our',
  'your', 'his', 'her', 'their', 'so', 'if', 'then', 'than', 'not', 'no', 'yes', 'here', 'there', 'what', 'which',
  'who', 'how', 'why', 'when', 'where', 'all', 'some', 'one', 'two', 'three', 'first', 'second', 'third', 'about',
]);

/** Lower-case name particles allowed inside a label ("Neil deGrasse Tyson", "Ursula von der Leyen"). */
const NAME_PARTICLES = new Set(['de', 'da', 'di', 'del', 'della', 'der', 'den', 'van', 'von', 'du', 'le', 'la', 'bin', 'al', 'dos', 'das', 'ter', 'ten', 'y', 'st']);

/** Role words: a label made of one of these (optionally numbered or followed by a name) is a speaker. */
const ROLE_WORDS = new Set([
  'speaker', 'interviewer', 'interviewee', 'host', 'cohost', 'co-host', 'guest', 'moderator', 'audience', 'member',
  'participant', 'presenter', 'narrator', 'reporter', 'caller', 'panelist', 'respondent', 'q', 'a', 'question',
  'answer', 'unknown', 'unidentified', 'man', 'woman', 'male', 'female', 'voice', 'student', 'teacher',
  'professor', 'prof', 'doctor', 'dr', 'judge', 'justice', 'chief', 'clerk', 'witness', 'attorney', 'counsel',
  'court', 'chairman', 'chairwoman', 'chair', 'president', 'senator', 'governor', 'mr', 'mrs', 'ms', 'miss', 'mx',
  'sir', 'gen', 'general', 'secretary', 'representative', 'rep', 'mayor', 'officer', 'agent', 'detective',
  'captain', 'capt', 'interpreter', 'translator', 'anchor', 'correspondent', 'announcer', 'crowd', 'child', 'kid',
  'boy', 'girl', 'patient', 'therapist', 'client', 'customer', 'agent', 'user', 'assistant', 'lecturer',
]);

const LABEL_CHARS = /^[\p{L}\p{M}\d .'’\-&]+$/u;
const MAX_LABEL_CHARS = 60;
const MAX_LABEL_WORDS = 6;

/** Lower-cased words of a label, split on anything that is not a letter, digit or apostrophe. */
export function labelWords(label: string): string[] {
  return label
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}'’-]+/u)
    .map((w) => w.replace(/^['’-]+|['’-]+$/g, ''))
    .filter((w) => w.length > 0);
}

/** Removes markdown emphasis, a leading ">>" caption marker and surrounding space from a label. */
export function cleanLabel(raw: string): string {
  return raw.replace(/^\s*(?:>>\s*)?/, '').replace(/[*_]{1,3}/g, '').replace(/\s+/g, ' ').trim();
}

/**
 * The shape test every candidate must pass: short, made of name-like words (capitalised, digits,
 * initials, particles), with no prose word and no document-furniture word.
 */
export function looksLikeLabel(label: string): boolean {
  if (label.length === 0 || label.length > MAX_LABEL_CHARS || !LABEL_CHARS.test(label)) return false;
  const tokens = label.split(' ').filter((t) => t.length > 0);
  if (tokens.length === 0 || tokens.length > MAX_LABEL_WORDS) return false;
  if (!/^[\p{Lu}\d]/u.test(tokens[0]!)) return false;
  for (const token of tokens) {
    const plain = token.replace(/[.'’-]/g, '').toLowerCase();
    if (plain.length === 0) {
      if (token !== '&' && token !== '-') return false;
      continue;
    }
    if (FUNCTION_WORDS.has(plain) && !(tokens.length <= 2 && ROLE_WORDS.has(plain))) return false;
    if (NOT_SPEAKER_WORDS.has(plain)) return false;
    const capitalised = /^[\p{Lu}\d]/u.test(token);
    if (!capitalised && !NAME_PARTICLES.has(plain)) return false;
  }
  return true;
}

/**
 * Whether a label that occurs only once is still believable: a role ("Speaker 3", "Audience
 * Member", "Q"), a titled name ("MS. KARLAN"), or a name of two to five words ("Susan Katz").
 * A lone capitalised word ("Remember:", "Update:") needs to recur to count.
 */
export function looksLikePersonOrRole(label: string): boolean {
  if (!looksLikeLabel(label)) return false;
  const words = labelWords(label);
  if (words.some((w) => ROLE_WORDS.has(w))) return true;
  const nameWords = words.filter((w) => !/^\d+$/.test(w));
  return nameWords.length >= 2 && nameWords.length <= 5 && !words.every((w) => /^\d+$/.test(w));
}

/** Inline cue timestamps (`<00:02:18.230>`): word timings, which speech recognition writes and people do not type. */
const INLINE_TIMESTAMP = /<(?:\d{1,2}:)?\d{2}:\d{2}\.\d{3}>/g;
/** Word-timed cues needed before a head is taken for a recognition track rather than a stray tag. */
const MIN_INLINE_TIMESTAMPS = 3;

/**
 * Whether the head of a WebVTT file (its first few KB, as text) is an automatic speech-recognition
 * caption track, such as YouTube's auto-captions: its cues time their words inline
 * (`gentlemen<00:02:18.230><c> welcome</c>`) and nothing names a speaker — no `<v Name>` voice
 * span, no `>>` change-of-speaker marker, no `Name:` prefix. Such a track names no speakers, so
 * an upload can say so before the file is parsed (the parse confirms it: `Transcript.unlabelled`).
 * False whenever in doubt.
 */
export function isAutoCaptionTrack(head: string): boolean {
  const text = head.replace(/^\uFEFF/, '');
  if (!/^WEBVTT(?:[ \t]|\r?\n|$)/.test(text)) return false;
  if ((text.match(INLINE_TIMESTAMP) ?? []).length < MIN_INLINE_TIMESTAMPS) return false;
  if (/<v[\s.>]/i.test(text)) return false;
  // The header block ("Kind: captions", "Language: en") ends at the first blank line.
  const headerEnd = text.search(/\r?\n[ \t]*\r?\n/);
  const body = headerEnd < 0 ? '' : text.slice(headerEnd);
  for (const line of body.split(/\r?\n/)) {
    if (line.includes('-->') || /^\s*(?:\d+\s*)?$/.test(line) || /^(?:NOTE|STYLE|REGION)\b/.test(line)) continue;
    const plain = line.replace(/<[^>]*>/g, '');
    if (/^\s*>>/.test(plain)) return false;
    const prefix = /^\s*([^:]{1,60}):(?:\s|$)/.exec(plain);
    if (prefix && looksLikeLabel(cleanLabel(prefix[1]!))) return false;
  }
  return true;
}
