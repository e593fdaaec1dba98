import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMindsetDate } from '../../../src/features/snapshots/upload.ts';

const iso = (v: string) => parseMindsetDate(v).toISOString();

test('dates off the calendar are refused, not moved to a neighbouring day', () => {
  for (const v of ['2021-02-30', '2021-04-31', '2023-02-29', '2024-13-01', '2024-00-10', '2024-05-00', '2024-05-01T24:00Z', '2024-05-01T10:60Z', '2024-05-01T10:00:60Z', '2024-05-01T10:00+24:00', 'last tuesday', '2024-5-1']) {
    assert.throws(() => parseMindsetDate(v), (err: any) => err.code === 'VALIDATION_FAILED' && /mindsetDate/.test(err.message) && err.details?.field === 'mindsetDate', v);
  }
  assert.match((() => { try { parseMindsetDate('2021-02-30'); } catch (e: any) { return e.message; } })()!, /2021-02-30 is not a calendar date/);
  assert.equal(iso('2024-02-29'), '2024-02-29T00:00:00.000Z');
  assert.equal(iso('2021-04-30'), '2021-04-30T00:00:00.000Z');
});

test('a date-time without a zone is UTC whatever the server’s time zone', () => {
  const tz = process.env.TZ;
  try {
    for (const zone of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
      process.env.TZ = zone;
      assert.equal(iso('2024-05-01T14:30'), '2024-05-01T14:30:00.000Z', zone);
      assert.equal(iso('2024-05-01T14:30:15.25'), '2024-05-01T14:30:15.250Z', zone);
      assert.equal(iso('2024-05-01'), '2024-05-01T00:00:00.000Z', zone);
    }
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
  assert.equal(iso('2024-05-01T14:30:00+02:00'), '2024-05-01T12:30:00.000Z');
  assert.equal(iso('2024-05-01T14:30:00-0330'), '2024-05-01T18:00:00.000Z');
  assert.equal(iso(' 2024-05-01T14:30:00Z '), '2024-05-01T14:30:00.000Z');
});
