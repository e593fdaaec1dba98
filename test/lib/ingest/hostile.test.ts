import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { ParseTimeoutError, sniffFile, UnreadableTranscriptError } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import { documentXml, fixturePath, makeCfb, makeDocx, storedEntry, tempDir, writeRawZip } from './helpers.ts';

const tmp = tempDir('hostile');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

async function rejectsUnreadable(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof UnreadableTranscriptError, `expected UnreadableTranscriptError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

const docxParts = [storedEntry('[Content_Types].xml', '<Types/>'), storedEntry('_rels/.rels', '<Relationships/>')];

test('a DOCX zip bomb announced in the central directory is refused before anything is inflated', async () => {
  // The declared size is 3 GB; the "deflated" bytes are garbage. Inflating them would fail as
  // corrupt data, so the zip-bomb message proves the refusal came from the directory alone.
  const bomb = writeRawZip([...docxParts, { name: 'word/document.xml', stored: randomBytes(4096), method: 8, declaredUncompressedSize: 3_000_000_000 }]);
  const path = tmp.file('bomb-declared.docx', bomb);
  assert.equal(await sniffFile(path), 'docx');
  await rejectsUnreadable(parseTranscriptFile(path, 'docx'), /^The DOCX expands to more than 100 MB \(zip bomb protection; decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB\)$/);
});

test('a DOCX entry with an impossible compression ratio is refused before inflating', async () => {
  // 40 MB of one repeated paragraph deflates to about 40 KB (ratio ~1000:1): under the size limit,
  // but no real document compresses like that. The stored bytes are garbage again.
  const bomb = writeRawZip([...docxParts, { name: 'word/document.xml', stored: randomBytes(40_000), method: 8, declaredUncompressedSize: 40 * 1024 * 1024 }]);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('bomb-ratio.docx', bomb), 'docx'), /^The DOCX has a part compressed 1,049:1, far beyond any real document \(zip bomb protection\)$/);
});

test('a DOCX refused for its compression ratio is not said to exceed the size limit it is under', async () => {
  // 28 MB at 600:1, in a part other than document.xml: well under the 100 MB limit.
  const part = { name: 'word/media/image1.png', stored: randomBytes(Math.round((28 * 1024 * 1024) / 600)), method: 8 as const, declaredUncompressedSize: 28 * 1024 * 1024 };
  const bomb = writeRawZip([...docxParts, storedEntry('word/document.xml', documentXml(['Ann: hello.'])), part]);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('bomb-ratio-28mb.docx', bomb), 'docx'), /^The DOCX has a part compressed 600:1, far beyond any real document \(zip bomb protection\)$/);
});

test('a DOCX whose headers lie about its size is stopped while inflating, at the limit', async () => {
  const xml = documentXml(Array.from({ length: 60_000 }, () => 'Ann: la la la la la la la la la la la la la la la la la la la la.'));
  const deflated = deflateRawSync(xml);
  assert.ok(xml.length > 4 * 1024 * 1024, 'the real content is several MB');
  const liar = writeRawZip([...docxParts, { name: 'word/document.xml', stored: deflated, method: 8, declaredUncompressedSize: 10_000 }]);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('bomb-liar.docx', liar), 'docx', { maxDocxUncompressedBytes: 1024 * 1024 }), /^The DOCX expands to more than 1 MB \(zip bomb protection; decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB\)$/);
  // The same file within a generous limit is an ordinary (if repetitive) document.
  const ok = await parseTranscriptFile(tmp.file('bomb-liar-2.docx', liar), 'docx', { maxDocxUncompressedBytes: 20 * 1024 * 1024 });
  // One speaker's 1.2 M words: Ann's, in parts of at most ~400 words.
  assert.ok(ok.turns.every((t) => t.speaker === 'Ann'));
  assert.ok(ok.turns.every((t) => t.text.split(' ').length <= 420));
});

test('an encrypted DOCX and a legacy .doc are refused with a reason a person understands', async () => {
  await rejectsUnreadable(parseTranscriptFile(tmp.file('secret.docx', makeCfb(['EncryptionInfo', 'EncryptedPackage'])), 'docx'), /^The DOCX is encrypted/);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('old.docx', makeCfb(['WordDocument'])), 'docx'), /legacy Word/);
  const zipEncrypted = writeRawZip([...docxParts, storedEntry('word/document.xml', documentXml(['x']))]);
  // Flag the document entry itself as encrypted (general-purpose bit 0 of its central header).
  const central = zipEncrypted.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zipEncrypted.writeUInt16LE(1, central + 8);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('zipcrypto.docx', zipEncrypted), 'docx'), /^The DOCX is encrypted/);
});

test('a truncated PDF is unreadable; so is a PDF over the page limit', async () => {
  const full = readFileSync(fixturePath('documents/pdf/scotus-17-1618_2a34.pdf'));
  const truncated = tmp.file('truncated.pdf', full.subarray(0, Math.floor(full.length / 2)));
  assert.equal(await sniffFile(truncated), 'pdf');
  await rejectsUnreadable(parseTranscriptFile(truncated, 'pdf'), /^The PDF is damaged or truncated$/);
  await rejectsUnreadable(parseTranscriptFile(fixturePath('documents/pdf/scotus-17-1618_2a34.pdf'), 'pdf', { maxPdfPages: 20 }), /^The PDF has more than 20 pages \(page limit of the parser\)$/);
});

test('documents with no text are unreadable', async () => {
  await rejectsUnreadable(parseTranscriptFile(tmp.file('blank.docx', await makeDocx(['', '   ', ''])), 'docx'), /^The document contains no text$/);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('blank.txt', '\n   \n\t\n'), 'txt'), /^The document contains no text$/);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('nocues.vtt', 'WEBVTT\n\nNOTE nothing here yet\n'), 'vtt'), /^The VTT file has no cues$/);
  await rejectsUnreadable(parseTranscriptFile(tmp.file('empty-cues.vtt', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<c></c>\n'), 'vtt'), /^The VTT file has no text/);
});

test('every WebVTT edge-case file either parses or is refused as unreadable; none crashes', async () => {
  const root = fixturePath('vtt-edge');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.vtt')) files.push(p);
    }
  };
  walk(root);
  assert.ok(files.length >= 30);
  let parsed = 0;
  for (const file of files) {
    const kind = await sniffFile(file);
    if (kind === null) continue;
    // A file with cue timing lines is captions, whatever its header: never stored as plain text.
    if (/^\s*(?:\d+:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?\s*-{2,}>/m.test(readFileSync(file, 'utf8'))) assert.equal(kind, 'vtt', `${file} has cues`);
    try {
      const t = await parseTranscriptFile(file, kind);
      assert.ok(t.turns.length > 0);
      for (const turn of t.turns) {
        assert.ok(!turn.text.includes('\u0000'), `${file}: NUL left`);
        assert.doesNotMatch(turn.text, /<\/?[a-z]/i, `${file}: markup left`);
        assert.doesNotMatch(turn.text, /-->|\bWEBVTT\b/i, `${file}: a header or timing line kept as speech: ${turn.text}`);
      }
      parsed++;
    } catch (err) {
      assert.ok(err instanceof UnreadableTranscriptError, `${file}: ${String(err)}`);
    }
  }
  assert.ok(parsed >= 20, `most edge files still yield text (${parsed})`);
});

test('WebVTT edge files: voices, regions, NULs and the spec example read as expected', async () => {
  const parse = async (rel: string) => parseTranscriptFile(fixturePath(`vtt-edge/${rel}`), 'vtt');
  const spec = await parse('generated/integration/debate-example.vtt');
  assert.deepEqual([...new Set(spec.turns.map((t) => t.speaker))], ['Jim Lehrer', 'Barack H Obama']);
  assert.equal(spec.turns[0]!.startMs, 11_000);
  assert.match(spec.turns[0]!.text, /^Gentlemen, welcome to you both\. Let's start the economy, segment one, and let's begin with jobs\./);
  const nulls = await parse('w3c/nulls.vtt');
  assert.ok(!nulls.turns[0]!.text.includes('\u0000'));
  const styles = await parse('w3c/stylesheets.vtt');
  assert.equal(styles.turns[0]!.text, 'text text', 'STYLE blocks are not text');
  const subclass = await parse('generated/cuetext/voice/with-two-subclasses.vtt');
  assert.deepEqual(subclass.turns, [{ speaker: 'Jim Lehrer', text: 'Let us begin.', startMs: 0, endMs: 2000 }]);
  await assert.rejects(parse('generated/regions/bad-region.vtt'), UnreadableTranscriptError);
});

test('a parse that runs past its timeout is stopped, its process replaced, and the pool keeps working', async () => {
  const small = tmp.file('small.txt', 'Ann: Hello.\nBen: Hi.\nAnn: Shall we?\n');
  await parseTranscriptFile(small, 'txt'); // workers are up and warm
  const bigPdf = fixturePath('documents/pdf/scotus-17-1618_2a34.pdf'); // 80 pages: far more than 20 ms of work
  await assert.rejects(parseTranscriptFile(bigPdf, 'pdf', { timeoutMs: 20 }), (err: unknown) => {
    assert.ok(err instanceof ParseTimeoutError);
    assert.ok(!(err instanceof UnreadableTranscriptError), 'a timeout is transient');
    assert.match(err.message, /took longer than 20 ms/);
    return true;
  });
  // Both slots work afterwards, in parallel, on real files.
  const [a, b, c] = await Promise.all([
    parseTranscriptFile(small, 'txt'),
    parseTranscriptFile(bigPdf, 'pdf'),
    parseTranscriptFile(fixturePath('documents/docx/meeting.docx'), 'docx'),
  ]);
  assert.deepEqual(a.turns.map((t) => t.speaker), ['Ann', 'Ben', 'Ann']);
  assert.ok(b.turns.length > 100);
  assert.equal(c.turns.length, 5);
});
