/**
 * How a parser process is held to its budgets (lib/ingest/budgets.ts) from outside: its resident
 * memory and CPU time read from /proc by the pool's watchdog, V8's word for a heap past its cap,
 * the errors naming the limit a parse passed, and what one parse cost.
 */
import { readFileSync } from 'node:fs';
import type { ParseBudgets } from '../../lib/ingest/budgets.ts';
import { ParseBudgetError } from '../../lib/ingest/errors.ts';

/** What one parse cost, measured by the watchdog (peak resident memory, CPU time) and the clock. */
export interface ParseStats {
  peakRssMb: number;
  cpuMs: number;
  wallMs: number;
}

/** How often the watchdog reads a busy parser's memory and CPU time. */
export const WATCH_INTERVAL_MS = 100;
/** What V8 writes to stderr when a process's heap passes its --max-old-space-size cap. */
export const OUT_OF_HEAP = /heap out of memory|Reached heap limit|Allocation failed/i;
/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export function memoryError(b: ParseBudgets): ParseBudgetError {
  return new ParseBudgetError('memory', `Parsing the file needed more than ${b.memoryMb} MB of memory (memory limit, MINDPRINT_PARSE_MEMORY_MB)`);
}

export function cpuError(b: ParseBudgets): ParseBudgetError {
  return new ParseBudgetError('cpu', `Parsing the file needed more than ${b.cpuSeconds} s of CPU time (time limit, MINDPRINT_PARSE_CPU_SECONDS)`);
}

/**
 * Resident memory and CPU time of a process, from /proc (Linux). Elsewhere null: the V8 heap cap
 * and the wall-clock timeout still hold, the RSS and CPU watchdog does not.
 */
export function readUsage(pid: number | undefined): { rssBytes: number; cpuMs: number } | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rssBytes: rss ? Number(rss[1]) * 1024 : 0, cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return null; // the process is gone
  }
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
