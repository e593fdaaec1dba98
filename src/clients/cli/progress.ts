/**
 * One file's progress in `mindprint upload`: bytes sent, then the snapshot's processing state
 * with the time since its upload began. On a terminal it is one line redrawn in place (a bar
 * while uploading, a spinner while the service works); elsewhere (pipes, CI, tests) it is one
 * plain line per change of state, so logs stay readable.
 */

export type FileState = 'uploading' | 'uploaded' | 'pending' | 'processing' | 'completed' | 'failed';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BAR = 24;

export class FileProgress {
  readonly #out: ProgressStream;
  readonly #label: string;
  readonly #total: number;
  readonly #tty: boolean;
  readonly #color: boolean;
  readonly #start = Date.now();
  #state: FileState | null = null;
  #sent = 0;
  #frame = 0;
  #detail: string | undefined;
  #timer: NodeJS.Timeout | null = null;
  #drawnAt = 0;

  constructor(out: ProgressStream, label: string, totalBytes: number, opts: { tty?: boolean; color?: boolean } = {}) {
    this.#out = out;
    this.#label = label;
    this.#total = totalBytes;
    this.#tty = opts.tty ?? Boolean(out.isTTY);
    this.#color = opts.color ?? this.#tty;
  }

  get elapsedMs(): number {
    return Date.now() - this.#start;
  }

  /** Bytes of the request body sent so far (the file plus a little multipart framing). */
  sent(bytes: number): void {
    this.#sent = Math.min(bytes, this.#total);
    if (this.#state === null) this.#enter('uploading', formatBytes(this.#total));
    // Redraw as bytes go, at most every 50 ms (the timer redraws too), and always at 100%.
    else if (this.#tty && this.#state === 'uploading' && (Date.now() - this.#drawnAt >= 50 || this.#sent === this.#total)) this.#draw();
  }

  /** A change of state; repeating the current state is ignored. `detail` ends the line (a snapshot id, a reason). */
  state(state: FileState, detail?: string): void {
    if (state === this.#state) return;
    if (state === 'uploaded') this.#sent = this.#total;
    this.#enter(state, detail ?? (state === 'uploading' || state === 'uploaded' ? formatBytes(this.#total) : undefined));
  }

  #enter(state: FileState, detail?: string): void {
    this.#state = state;
    const final = state === 'completed' || state === 'failed';
    if (!this.#tty) {
      const time = state === 'uploading' ? '' : ` (${formatElapsed(this.elapsedMs)})`;
      this.#out.write(`${this.#label}: ${state}${time}${detail ? `: ${detail}` : ''}\n`);
      return;
    }
    this.#detail = detail;
    this.#draw();
    if (final) {
      this.#stopTimer();
      this.#out.write('\n');
    } else if (!this.#timer) {
      this.#timer = setInterval(() => this.#draw(), 100);
      this.#timer.unref();
    }
  }

  #draw(): void {
    const state = this.#state!;
    const final = state === 'completed' || state === 'failed';
    const paint = (code: string, text: string) => (this.#color ? `\x1b[${code}m${text}\x1b[0m` : text);
    const mark = state === 'completed' ? paint('32', '✔') : state === 'failed' ? paint('31', '✖') : paint('36', SPINNER[this.#frame++ % SPINNER.length]!);
    let rest: string; // after the label, uncoloured
    let paintRest = (text: string) => text;
    if (state === 'uploading') {
      const fraction = this.#total ? this.#sent / this.#total : 1;
      const filled = Math.round(fraction * BAR);
      rest = `  ${'█'.repeat(filled)}${'░'.repeat(BAR - filled)} ${String(Math.floor(fraction * 100)).padStart(3)}%  ${formatBytes(this.#sent)}/${formatBytes(this.#total)}`;
    } else {
      const head = `  ${state}  ${formatElapsed(this.elapsedMs)}`;
      rest = `${head}${this.#detail ? `  ${this.#detail}` : ''}`;
      if (this.#detail) paintRest = (text) => text.slice(0, head.length + 2) + paint(state === 'failed' ? '31' : '2', text.slice(head.length + 2));
    }
    // A redrawn line must not wrap, or `\r` would only return to its last row: shorten the
    // label first (keeping its end, the file name), then the rest. A final line may wrap.
    let label = this.#label;
    const width = (this.#out.columns || 80) - 1; // 0 on a terminal of unknown size
    const over = 2 + label.length + rest.length - width;
    if (!final && over > 0) {
      const keep = Math.max(8, label.length - over - 1);
      if (keep < label.length) label = `…${label.slice(label.length - keep)}`;
      const room = width - 2 - label.length;
      if (rest.length > room) rest = `${rest.slice(0, Math.max(0, room - 1))}…`;
    }
    this.#drawnAt = Date.now();
    this.#out.write(`\r\x1b[2K${mark} ${label}${paintRest(rest)}`);
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Stops redrawing (e.g. on an unexpected error) and ends the line on a terminal. */
  close(): void {
    if (this.#timer) {
      this.#stopTimer();
      this.#out.write('\n');
    }
  }
}
