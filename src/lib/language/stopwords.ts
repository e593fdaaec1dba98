/**
 * Words that carry no topic. Two groups: ordinary English function words, and the fillers
 * of spoken conversation ("yeah", "kind of", "you know") that transcripts are full of and
 * that would otherwise make every turn look relevant to every question, and the framing words
 * of questions ("your opinion on", "your thoughts about") that say nothing of the topic.
 */
const FUNCTION_WORDS = `a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
down during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's
me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own
same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them
themselves then there there's these they they'd they'll they're they've this those through to too under until
up very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who
who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
also just will shall may might must upon yet ever every either neither whether within without via per etc
ok okay oh ah uh um hmm mm yeah yes yep nope hey hi hello well sure right really actually basically literally
like just gonna wanna gotta kinda sorta thing things stuff something anything everything nothing someone anyone
everyone somebody anybody everybody lot lots bit kind sort way ways much many one ones two get gets got getting
go goes going gone went come comes came coming make makes made making say says said saying tell tells told
telling talk talks talked talking think thinks thought thinking know knows knew knowing mean means meant want
wants wanted see sees saw seen look looks looked let lets put puts take takes took give gives gave guess
maybe perhaps probably certainly definitely absolutely totally pretty quite rather still already even
ever never always often sometimes now then today here there back another else anyway though although
us let's that'd there'd who'd it'd it'll that'll there'll what'd what'll ain't y'all gotten
mr mrs ms dr sir
opinion opinions thoughts views
`;

export const STOPWORDS: ReadonlySet<string> = new Set(FUNCTION_WORDS.split(/\s+/).filter(Boolean));
