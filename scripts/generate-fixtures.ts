/**
 * Writes the test fixtures of test/fixtures (see test/fixtures/SOURCES.md for each file's source
 * and status). Two parts:
 *
 *   node --import tsx scripts/generate-fixtures.ts            the generated files: DOCX documents,
 *                                                              WebVTT edge cases (needs nothing)
 *   node --import tsx scripts/generate-fixtures.ts --cut      also cuts the excerpts of public-domain
 *                                                              transcripts from ../shared/data
 *
 * The outputs are committed (they are small), so tests never run this; `--check` regenerates the
 * generated part in memory and exits 1 if a committed file differs (test/fixtures.test.ts runs it).
 * Every output is deterministic: the same bytes on every run.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import JSZip from 'jszip';
import { FIXTURES, requireSharedData, sharedDataPath } from '../test/support/shared-data.ts';

// ─── DOCX, as a word processor writes it ──────────────────────────────────────────────────────

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * One paragraph as Word tends to store it: the text split over several runs (formatting and
 * spell-check boundaries), a bold run for the speaker label, and proofing marks between runs.
 */
function paragraphXml(text: string): string {
  const label = /^([^:]{1,40}):\s/.exec(text);
  const runs: string[] = [];
  let rest = text;
  if (label) {
    runs.push(`<w:r><w:rPr><w:b/></w:rPr><w:t>${escapeXml(label[1]!)}:</w:t></w:r>`);
    rest = text.slice(label[0].length - 1); // keep the space
  }
  // Cut the rest at a word boundary near its middle, as an edit in the middle of a sentence leaves it.
  const mid = rest.indexOf(' ', Math.floor(rest.length / 2));
  const parts = mid > 0 ? [rest.slice(0, mid), rest.slice(mid)] : [rest];
  parts.forEach((p, i) => {
    if (i > 0) runs.push('<w:proofErr w:type="spellStart"/><w:proofErr w:type="spellEnd"/>');
    runs.push(`<w:r><w:rPr><w:lang w:val="en-US"/></w:rPr><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r>`);
  });
  return `<w:p><w:pPr><w:pStyle w:val="Normal"/><w:spacing w:after="160"/></w:pPr>${runs.join('')}</w:p>`;
}

const DOCX_PARTS = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  'word/_rels/document.xml.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  'word/styles.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:rPr><w:sz w:val="22"/></w:rPr></w:style></w:styles>',
  'docProps/app.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Office Word</Application></Properties>',
};

async function docx(title: string, paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  // A fixed date, so the archive is the same bytes on every run.
  const date = new Date('2024-01-01T00:00:00Z');
  for (const [name, content] of Object.entries(DOCX_PARTS)) zip.file(name, content, { date, createFolders: false });
  zip.file(
    'docProps/core.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${escapeXml(title)}</dc:title></cp:coreProperties>`,
    { date, createFolders: false },
  );
  const body = paragraphs.map(paragraphXml).join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`,
    { date, createFolders: false },
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', platform: 'UNIX' });
}

/** A short meeting in the `Speaker N:` style of meeting-minutes tools: three people, five turns (written for the tests). */
const MEETING = [
  'Speaker 1: Good morning, everyone. The first item is the move to the new office in March; the lease is signed and the movers are booked for the last weekend of the month.',
  'Speaker 2: Thanks. Two things from facilities: the network cabling is not finished on the third floor, and we still need someone to collect the new access badges from the landlord.',
  'Speaker 1: Then let us keep the third floor closed until the cabling is done. Can somebody take the badges this week?',
  "Speaker 3: Yes, I'll take care of it.",
  'Speaker 2: Good. I will send the floor plan with the seating to everyone by Friday, so teams can say what they need before the move.',
];

// ─── WebVTT edge cases ────────────────────────────────────────────────────────────────────────

/**
 * Caption files that break the WebVTT specification the ways files in the wild do, and files that
 * use its rarer parts (regions, styles, ruby, language and class spans, timestamps in cues).
 * Written for these tests after the categories of the vtt.js test suite (see SOURCES.md).
 */
const VTT_EDGE: Record<string, string | Buffer> = {
  // file layout
  'file-layout/newline-before-webvtt.vtt': '\nWEBVTT\n\n00:00.000 --> 00:02.000\ntext',
  'file-layout/bad-double-webvtt.vtt': 'WEBvtt\nWEBVTT\n\n00:01.000 ---> 00:02.000\nsome text\n',
  'file-layout/blank-file-with-bom.vtt': Buffer.from([0xef, 0xbb, 0xbf]),
  'file-layout/garbage-signature.vtt': 'garbage vtt file',
  'file-layout/header-no-new-line.vtt': 'WEBVTT\n00:11.000 --> 00:13.000\nNo blank line after the header',
  'file-layout/header-with-text.vtt': 'WEBVTT - Debate captions, English\n\n00:01.000 --> 00:03.000\nGood evening from Denver.\n',
  'file-layout/crlf.vtt': 'WEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.500\r\nWindows line ends\r\n\r\n00:00:02.500 --> 00:00:04.000\r\nare line ends too\r\n',
  'file-layout/cr-only.vtt': 'WEBVTT\r\r00:00:01.000 --> 00:00:02.000\rold Mac line ends\r',
  'file-layout/many-comments.vtt':
    'WEBVTT\n\nNOTE\nCaptioned from the broadcast. The times\nmay be off by a second or so.\n\n00:01.000 --> 00:04.000\nGentlemen, welcome to you both.\n\nNOTE a one-line note between cues\n\n00:04.000 --> 00:07.000\nLet us begin with the economy.\n\nNOTE\nlast note\n',
  'file-layout/no-trailing-newline.vtt': 'WEBVTT\n\n00:00.000 --> 00:01.000\nthe last line has no line end',
  // cue times
  'cue-times/max-spots-over-sixty.vtt': 'WEBVTT\n\n120:00:00.000 --> 120:00:00.000\nText\n',
  'cue-times/missing-separator.vtt': 'WEBVTT\n\n00:00.000 00:00.001\n',
  'cue-times/seconds-over-sixty.vtt': 'WEBVTT\n\n00:00:75.000 --> 00:00:80.000\nseventy-five seconds is not a time\n\n00:01:20.000 --> 00:01:22.000\nbut this cue is fine\n',
  'cue-times/omitted-hours.vtt': 'WEBVTT\n\n00:01.000 --> 00:02.000\nminutes and seconds only\n\n01:00:01.000 --> 01:00:02.000\nan hour in\n',
  'cue-times/end-before-start.vtt': 'WEBVTT\n\n00:05.000 --> 00:04.000\nends before it starts\n\n00:06.000 --> 00:07.000\nin order again\n',
  'cue-times/overlapping.vtt': 'WEBVTT\n\n00:01.000 --> 00:05.000\n<v Moderator>Two minutes, Mr. President.\n\n00:02.000 --> 00:03.000\n<v President>Thank you.\n',
  // cue text
  'cuetext/class/with-annotation.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<c.loud annotation>A class span</c>\n',
  'cuetext/escape-characters/together.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n&amp;&lt;&gt;&lrm;&rlm;&nbsp;tax &amp; spending\n',
  'cuetext/languages/multiple-languages.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<lang en>Thank you,</lang> <lang es>muchas gracias</lang>\n\n00:02.000 --> 00:04.000\n<lang fr>et bonsoir</lang>\n',
  'cuetext/ruby/basic.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<ruby>Colorado <rt>state</rt></ruby>\n',
  'cuetext/timestamp/nested.vtt': 'WEBVTT\n\n00:00.000 --> 00:04.000\n<c>we <00:01.000>have <00:02.000><b>to <00:03.000>invest</b></c>\n',
  'cuetext/voice/no-end-gt.vtt': "WEBVTT\n\n00:00.000 --> 00:02.000\n<v It's a voice tag without its end\n",
  'cuetext/voice/not-closed.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<v Jim Lehrer>The voice is never closed\n',
  'cuetext/voice/with-annotation.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<v Jim Lehrer>Gentlemen, welcome.</v>\n',
  'cuetext/voice/with-closing-span.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<v Jim Lehrer>Two minutes.</v> And more.\n',
  'cuetext/voice/with-subclass.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<v.first Jim Lehrer>Segment one.</v>\n',
  'cuetext/voice/with-two-subclasses.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<v.first.loud Jim Lehrer>Let us begin.</v>\n',
  'cuetext/unknown-tags.vtt': 'WEBVTT\n\n00:00.000 --> 00:02.000\n<font color="red">not a caption tag</font> <i>italic</i> <u>underlined</u>\n',
  // integration
  'integration/cue-identifier.vtt': 'WEBVTT\n\nintro-1\n00:00.000 --> 00:02.000\nA cue with an identifier\n\n2\n00:02.000 --> 00:04.000\nand a numeric one\n',
  'integration/only-nested-cues.vtt': 'WEBVTT\n\n00:00.000 --> 01:24.000\nIntroduction\n\n00:00.000 --> 00:44.000\nTopics\n\n00:44.000 --> 01:19.000\nPresenters\n\n01:24.000 --> 05:00.000\nScrolling Effects\n',
  'integration/regions.vtt':
    'WEBVTT\nRegion: id=left width=40% lines=3 regionanchor=0%,100% viewportanchor=10%,90% scroll=up\nRegion: id=right width=40% lines=3 regionanchor=100%,100% viewportanchor=90%,90% scroll=up\n\n00:00.000 --> 00:03.000 region:left\n<v Jim Lehrer>Mr. President, two minutes.\n\n00:03.000 --> 00:06.000 region:right\n<v Barack H Obama>Well, thank you very much, Jim.\n',
  'integration/debate-example.vtt':
    `WEBVTT\n\n00:11.000 --> 00:13.000\n<v Jim Lehrer>Gentlemen, welcome to you both.\n\n00:13.000 --> 00:16.000\n<v Jim Lehrer>Let's start the economy, segment one,\n\n00:16.000 --> 00:18.000\n<v Jim Lehrer>and let's begin with jobs.\n\n00:30.000 --> 00:31.500 align:end size:50%\n<v Jim Lehrer>Mr. President, please respond directly\n\n00:30.500 --> 00:32.500 align:start size:50%\n<v Barack H Obama>Well, let me talk specifically about what I think we need to do.\n\n00:32.500 --> 00:33.500 align:start size:50%\n<v Barack H Obama><i>Applause</i>\n`,
  // regions
  'regions/bad-region.vtt': 'WEBVTT\nRegon: id=fred\n',
  'regions/id/correct.vtt': "WEBVTT\nRegion: id=fred&!(*ASD&A*!a'.\n\n00:00.000 --> 00:01.000 region:fred&!(*ASD&A*!a'.\nText\n",
  'regions/regionanchor/percent-over.vtt': 'WEBVTT\nRegion: id=fred regionanchor=121.12%,89.56%\n',
  'regions/scroll/bogus-value.vtt': 'WEBVTT\nRegion: id=fred scroll=bogus\n',
  // hostile bytes
  'hostile/nul-characters.vtt': `WEBVTT\n\n00:00.000 --> 00:02.000\nNUL\u0000 inside\u0000 a cue\n\n00:02.000 --> 00:04.000\n\u0000\n`,
  'hostile/very-long-cue.vtt': `WEBVTT\n\n00:00.000 --> 00:10.000\n${'a very long line of caption text '.repeat(400).trim()}\n`,
};

// ─── the excerpts of public-domain transcripts (from ../shared/data) ─────────────────────────

/** The first `share` of a `Name: text` transcript, cut at the start of a speaker's line. */
function headOfTranscript(text: string, share: number): string {
  const lines = text.split('\n');
  let n = Math.floor(lines.length * share);
  while (n < lines.length && !/^[A-Z][A-Za-z. ]+: /.test(lines[n]!)) n++;
  return `${lines.slice(0, n).join('\n').trimEnd()}\n`;
}

/** The cues of a WebVTT file that start before `untilMs`, with its header. */
function headOfCaptions(text: string, untilMs: number): string {
  const blocks = text.replace(/\r\n?/g, '\n').split(/\n\n+/);
  const kept = [blocks[0]!];
  for (const block of blocks.slice(1)) {
    const m = /^(\d+):(\d\d):(\d\d)\.(\d{3}) -->/m.exec(block);
    if (m && (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000 + Number(m[4]) >= untilMs) break;
    kept.push(block);
  }
  return `${kept.join('\n\n')}\n`;
}

const DEBATES = 'transcripts/us-presidential-debates/';
/** The first half of each 2012 debate; the first 20 minutes of the auto-captions of the first. */
export const EXCERPT_SHARE = 0.5;
export const CAPTIONS_MINUTES = 20;

function cut(): void {
  requireSharedData('scripts/generate-fixtures.ts --cut');
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22']) {
    write(`${DEBATES}${date}.said.txt`, headOfTranscript(readFileSync(sharedDataPath(`${DEBATES}${date}.said.txt`), 'utf8'), EXCERPT_SHARE));
    copy(`${DEBATES}${date}.json`);
  }
  write(`${DEBATES}2012-10-03.vtt`, headOfCaptions(readFileSync(sharedDataPath(`${DEBATES}2012-10-03.vtt`), 'utf8'), CAPTIONS_MINUTES * 60_000));
  copy('documents/pdf/scotus-17-1618_2a34.pdf');
  // W3C's WebVTT tests, dedicated to the public domain (CC0): copied as they are.
  for (const f of ['nulls.vtt', 'stylesheets.vtt', 'signature-no-newline.vtt', 'timings-omitted-hours.vtt']) copy(`vtt-edge/w3c-webvtt.js/test/wpt-file-parsing/${f}`, `vtt-edge/w3c/${f}`);
  copy('vtt-edge/w3c-webvtt.js/test/wpt-cue-parsing/tags.vtt', 'vtt-edge/w3c/tags.vtt');
}

// ─── writing ─────────────────────────────────────────────────────────────────────────────────

const check = process.argv.includes('--check');
const differing: string[] = [];

function write(rel: string, content: string | Buffer): void {
  const path = join(FIXTURES, rel);
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  if (check) {
    if (!existsSync(path) || !readFileSync(path).equals(bytes)) differing.push(rel);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

function copy(rel: string, to = rel): void {
  mkdirSync(dirname(join(FIXTURES, to)), { recursive: true });
  copyFileSync(sharedDataPath(rel), join(FIXTURES, to));
}

async function generate(): Promise<void> {
  write('documents/docx/meeting.docx', await docx('Office move: weekly meeting', MEETING));
  for (const [name, content] of Object.entries(VTT_EDGE)) write(`vtt-edge/generated/${name}`, content);
}

await generate();
if (process.argv.includes('--cut') && !check) cut();
if (check) {
  if (differing.length) {
    process.stderr.write(`test/fixtures is out of date (${differing.join(', ')}): run node --import tsx scripts/generate-fixtures.ts\n`);
    process.exit(1);
  }
  process.stdout.write('test/fixtures: the generated files are up to date\n');
}
