import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { sniffFile } from '../../../src/lib/ingest/index.ts';
import { fixturePath, makeCfb, makeDocx, storedEntry, tempDir, writeRawZip } from './helpers.ts';

const tmp = tempDir('sniff');
after(() => tmp.cleanup());

test('real files are recognised by their bytes', async () => {
  assert.equal(await sniffFile(fixturePath('documents/pdf/scotus-17-1618_2a34.pdf')), 'pdf');
  assert.equal(await sniffFile(fixturePath('documents/docx/meeting.docx')), 'docx');
  assert.equal(await sniffFile(fixturePath('transcripts/us-presidential-debates/2012-10-03.vtt')), 'vtt');
  assert.equal(await sniffFile(fixturePath('transcripts/us-presidential-debates/2012-10-16.said.txt')), 'txt');
  assert.equal(await sniffFile(fixturePath('transcripts/us-presidential-debates/2012-10-22.said.txt')), 'txt');
});

test('a file name never decides the kind', async () => {
  const pdfBytes = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n');
  assert.equal(await sniffFile(tmp.file('actually-a-pdf.txt', pdfBytes)), 'pdf');
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(2048)]);
  assert.equal(await sniffFile(tmp.file('photo.pdf', png)), null, 'a PNG renamed .pdf is not a PDF');
  assert.equal(await sniffFile(tmp.file('notes.vtt', 'Just some notes about the meeting.\n')), 'txt');
});

test('random bytes are not a transcript', async () => {
  // Force a NUL and an invalid UTF-8 byte so the outcome never depends on the draw.
  const bytes = randomBytes(4096);
  bytes[100] = 0;
  bytes[200] = 0xff;
  assert.equal(await sniffFile(tmp.file('random.bin', bytes)), null);
});

test('a zip that is not a Word document is refused; a DOCX is found through its central directory', async () => {
  const plainZip = writeRawZip([storedEntry('readme.txt', 'hello'), storedEntry('data/values.csv', 'a,b\n1,2\n')]);
  assert.equal(await sniffFile(tmp.file('archive.docx', plainZip)), null);
  assert.equal(await sniffFile(tmp.file('made.bin', await makeDocx(['Ann: Hello there.']))), 'docx');
  // A zip whose directory is damaged is not a DOCX either.
  const broken = Buffer.from(plainZip);
  broken.writeUInt32LE(0xdeadbeef, broken.length - 22 + 16);
  assert.equal(await sniffFile(tmp.file('broken.zip', broken)), null);
  // Deflated and stored entries alike: what matters is the name in the directory.
  const deflated = writeRawZip([{ name: 'word/document.xml', stored: deflateRawSync('<w:document/>'), method: 8, declaredUncompressedSize: 13 }]);
  assert.equal(await sniffFile(tmp.file('deflated.bin', deflated)), 'docx');
});

test('a password-protected DOCX (CFB with EncryptedPackage) is a DOCX; a legacy .doc is not', async () => {
  assert.equal(await sniffFile(tmp.file('secret.docx', makeCfb(['EncryptionInfo', 'EncryptedPackage']))), 'docx');
  assert.equal(await sniffFile(tmp.file('old.doc', makeCfb(['WordDocument', '1Table']))), null);
});

test('WebVTT with a byte-order mark, SRT, and plain UTF-8 text', async () => {
  const bomVtt = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello\n')]);
  assert.equal(await sniffFile(tmp.file('a.bin', bomVtt)), 'vtt');
  assert.equal(await sniffFile(tmp.file('b.bin', 'WEBVTT')), 'vtt');
  assert.equal(await sniffFile(tmp.file('c.bin', '1\n00:00:01,000 --> 00:00:04,000\nAnn: Hello.\n\n2\n00:00:05,000 --> 00:00:06,500\nBob: Hi.\n')), 'srt');
  assert.equal(await sniffFile(tmp.file('d.bin', 'Zoë: Ça va? Très bien — merci.\n')), 'txt');
  assert.equal(await sniffFile(tmp.file('e.bin', 'text with a \u0001\u0002\u0003\u0004 control run')), null, 'control characters mean binary');
  // "WEBvtt" is not the signature, but the cues are clear: captions, read leniently (captions.test.ts).
  assert.equal(await sniffFile(fixturePath('vtt-edge/generated/file-layout/bad-double-webvtt.vtt')), 'vtt');
  assert.equal(await sniffFile(fixturePath('vtt-edge/w3c/nulls.vtt')), 'vtt');
});

test('a multi-byte character cut by the sniffing window does not make a text file binary', async () => {
  const text = 'é'.repeat(40_000); // 80 KB of two-byte characters, longer than the head that is read
  assert.equal(await sniffFile(tmp.file('long.txt', `x${text}`)), 'txt');
});
