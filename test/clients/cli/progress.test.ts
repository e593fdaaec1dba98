/**
 * The upload progress line: redrawn in place on a terminal, one plain line per state elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FileProgress, formatBytes, formatElapsed } from '../../../src/clients/cli/progress.ts';

const ESC = String.fromCharCode(27);

function sink(isTTY: boolean, columns = 80) {
  const chunks: string[] = [];
  return { chunks, isTTY, columns, write: (c: string) => chunks.push(c) };
}

test('on a terminal: a bar while uploading, then the state redrawn on one line, ended by a newline', (t) => {
  t.mock.timers.enable({ apis: ['Date', 'setInterval'] });
  const out = sink(true);
  const p = new FileProgress(out, 'talk.vtt', 2048, { color: false });
  p.state('uploading');
  p.sent(10);
  assert.equal(out.chunks.length, 1, 'redraws are throttled');
  t.mock.timers.tick(60);
  p.sent(1024);
  p.sent(4096); // multipart framing makes the body a little larger than the file: capped
  p.state('uploaded');
  p.state('processing');
  const drawn = out.chunks.length;
  t.mock.timers.tick(1500);
  assert.ok(out.chunks.length >= drawn + 10, 'the timer keeps the elapsed time and spinner moving');
  p.state('processing');
  p.state('completed', 'snapshot abc');
  const text = out.chunks.join('');
  assert.ok(out.chunks.every((c) => c === '\n' || c.startsWith('\r\x1b[2K')), 'every draw clears the line first');
  assert.equal(text.split('\n').length, 2, 'one line in all, ended once');
  assert.ok(text.endsWith('\n'));
  assert.match(out.chunks[0]!, /talk\.vtt {2}░{24} {3}0% {2}0 B\/2\.0 KB/);
  assert.ok(out.chunks.some((c) => /█{12}░{12} {2}50% {2}1\.0 KB\/2\.0 KB/.test(c)), out.chunks.join('|'));
  assert.ok(out.chunks.some((c) => / 100% {2}2\.0 KB\/2\.0 KB/.test(c)));
  assert.ok(out.chunks.some((c) => /talk\.vtt {2}processing {2}\d+\.\ds/.test(c)));
  assert.match(out.chunks.at(-3)!, /talk\.vtt {2}processing {2}1\.6s$/);
  assert.match(out.chunks.at(-2)!, /✔ talk\.vtt {2}completed {2}1\.6s {2}snapshot abc$/);
  t.mock.timers.tick(1000);
  assert.equal(out.chunks.at(-1), '\n', 'no redraw after the final state');
});

test('on a terminal a redrawn line never wraps; colour only when asked', () => {
  const out = sink(true, 30);
  const p = new FileProgress(out, 'a-very-long-file-name-indeed.vtt', 10, { color: true });
  p.state('pending');
  const visible = out.chunks[0]!.replace(new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g'), '').replace('\r', '');
  assert.ok(visible.length <= 29, visible);
  assert.match(visible, /^⠋ …-indeed\.vtt {2}pending {2}0\.\ds$/);
  assert.ok(out.chunks[0]!.includes(`${ESC}[36m⠋${ESC}[0m`));
  p.state('failed', 'a long reason that is printed whole because the line is final');
  assert.ok(out.chunks.at(-2)!.includes(`${ESC}[31m✖${ESC}[0m a-very-long-file-name-indeed.vtt  failed`), out.chunks.at(-2));
  assert.ok(out.chunks.at(-2)!.endsWith(`${ESC}[31ma long reason that is printed whole because the line is final${ESC}[0m`), out.chunks.at(-2));
  p.close();
});

test('elsewhere: one plain line per change of state, no control characters', () => {
  const out = sink(false);
  const p = new FileProgress(out, 'talk.vtt', 2048);
  p.state('uploading');
  p.sent(100);
  p.sent(2048);
  p.state('uploaded');
  p.state('pending');
  p.state('pending');
  p.state('failed', 'Parse error');
  p.close();
  const lines = out.chunks.join('').split('\n').filter(Boolean);
  assert.deepEqual(
    lines.map((l) => l.replace(/\(\d+\.\ds\)/, '(T)')),
    ['talk.vtt: uploading: 2.0 KB', 'talk.vtt: uploaded (T): 2.0 KB', 'talk.vtt: pending (T)', 'talk.vtt: failed (T): Parse error'],
  );
  assert.ok(!out.chunks.join('').includes('\r') && !out.chunks.join('').includes(ESC));
});

test('sizes and durations read naturally', () => {
  assert.deepEqual([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(5 * 1024 * 1024)], ['0 B', '1023 B', '1.5 KB', '5.0 MB']);
  assert.deepEqual([formatElapsed(0), formatElapsed(12_340), formatElapsed(65_000)], ['0.0s', '12.3s', '1m05s']);
});
