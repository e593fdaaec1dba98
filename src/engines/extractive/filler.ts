/**
 * Filler: what a person says around a conversation rather than in it — greetings and thanks
 * for having them, outros ("feel free to follow me", "you can find me on LinkedIn"), sponsor
 * reads ("brought to you by…", "use code…"). True as far as it goes, but it never answers a
 * substantive question, so the engine leaves such sentences out of answers and does not pick
 * a turn made of them.
 */
import { words } from '../../lib/language/text.ts';

const PATTERNS: RegExp[] = [
  // Greetings and courtesies of the start and the end of a show.
  /^(?:(?:oh|well|yeah|and),?\s+)*(?:hi|hello|hey)\b(?:\s+(?:everyone|everybody|all|there|guys|folks))?[\s!,.]*$/i,
  /^(?:(?:oh|well|yeah|and|no),?\s+)*(?:thank you|thanks)(?:\s+(?:so|very)\s+much)?(?:\s+for\s+(?:having|inviting|the invitation|the opportunity|talking|this|that|coming|your time|listening|watching)[^.?!]*)?(?:,?\s+\p{Lu}[\p{L}'-]*)?[\s!.]*$/iu,
  /\b(?:great|good|happy|glad|excited|pleasure|honou?red|thrilled|fun)\b[^.?!]{0,20}\b(?:to be here|to be on|being here|to be back|having me|to join you|to chat|to talk with you)\b/i,
  /\b(?:thanks|thank you)\s+(?:so much\s+|very much\s+)?for\s+(?:having me|inviting me|having us)\b/i,
  /\bit(?:'s| is| was| has been| 's been)\s+(?:a|an)\s+(?:real\s+|absolute\s+|great\s+)?(?:pleasure|honou?r|privilege|treat)\b/i,
  // Outros: where to find or follow the person.
  /\b(?:feel free to|please|go|you can|you could|people can|they can|come)\s+(?:\w+\s+){0,2}(?:follow|find|reach|subscribe|connect with|ping|dm|email|message)\s+(?:me|us)\b/i,
  /\bfollow me\b|\bfind me (?:on|at)\b|\bsubscribe\b|\bnewsletter\b|\bshow notes\b|\blink(?:s)? (?:is |are )?in the (?:description|show notes)\b/i,
  /\b(?:on|at) (?:twitter|linkedin|instagram|tiktok|youtube|substack|x\.com)\b.*\b(?:me|my|us)\b|\bmy (?:twitter|linkedin|website|handle|instagram|substack|podcast|channel)\b/i,
  // Sponsor reads.
  /\bbrought to you by\b|\bthis (?:episode|show|podcast) is (?:sponsored|supported)\b|\bour sponsor\b|\bsponsored by\b|\bpromo code\b|\buse (?:the )?code\b|\b(?:go|head) (?:over )?to \S+\.(?:com|ai|io|org)\b|\bdot com slash\b|\b\d+% off\b/i,
];

/** Whether one sentence is filler (see the module comment). */
export function isFiller(sentence: string): boolean {
  const s = sentence.trim();
  return PATTERNS.some((p) => p.test(s));
}

/** The share (0–1) of a text's words that are in filler sentences, given its sentences. */
export function fillerShare(spans: readonly { text: string }[]): number {
  let total = 0;
  let filler = 0;
  for (const s of spans) {
    const n = words(s.text).length;
    total += n;
    if (isFiller(s.text)) filler += n;
  }
  return total > 0 ? filler / total : 0;
}
