/**
 * Errors of the ingest module.
 *
 * The job runner decides between "fail the snapshot now" and "retry later" by class:
 * UnreadableTranscriptError means the bytes can never become a transcript, so retrying is
 * pointless; ParseBudgetError (a subclass) means reading the file needs more than a parse may
 * use (memory, CPU time, decoded bytes, pages, streams), which is just as deterministic, and so is
 * a parser that crashes on the file twice in a row. A parser killed from outside, a closed pool
 * (shutdown) and I/O errors may pass; a wall-clock timeout may pass once (a busy machine; see
 * snapshots/pipeline.ts); anything else is a bug and is not retried.
 */

/** The file can never be read as a transcript. `message` is a sentence meant for a person. */
export class UnreadableTranscriptError extends Error {
  override name = 'UnreadableTranscriptError';
}

/** Which budget a parse ran past (see budgets.ts): the reason a snapshot fails names it. */
export type ParseLimit = 'memory' | 'cpu' | 'decoded' | 'pages' | 'streams' | 'crash';

/**
 * Reading the file would take more than a parse is allowed: a decompression bomb, a file that
 * needs more memory or CPU time than the budget, a parser that crashes on it every time. The same
 * file fails the same way again, so it is never retried. `message` names the limit and the setting.
 */
export class ParseBudgetError extends UnreadableTranscriptError {
  override name = 'ParseBudgetError';
  readonly limit: ParseLimit;

  constructor(limit: ParseLimit, message: string) {
    super(message);
    this.limit = limit;
  }
}

/**
 * The requested speaker label names none of the transcript's labels, or (with `candidates`)
 * more than one of them, so which one is meant cannot be told.
 */
export class UnknownSpeakerError extends Error {
  override name = 'UnknownSpeakerError';
  readonly labels: string[];
  readonly candidates: string[];

  constructor(requested: string, labels: string[], candidates: string[] = []) {
    super(
      candidates.length > 1
        ? `Speaker "${requested}" could be any of ${candidates.map((c) => `"${c}"`).join(', ')} in this transcript; give the full label`
        : `No speaker "${requested}" in this transcript; the speakers are: ${labels.join(', ') || '(none)'}`,
    );
    this.labels = labels;
    this.candidates = candidates;
  }
}

/**
 * Parsing took longer than allowed and its worker was terminated. Transient on purpose: a busy
 * machine can cause it too, and the queue's bounded retries cap what a hostile file can cost.
 */
export class ParseTimeoutError extends Error {
  override name = 'ParseTimeoutError';
}

/**
 * A parser process died for a reason outside the file (killed by a signal it did not raise
 * itself: the operator, the system's OOM killer, a shutdown) while handling it. Transient. A
 * parser that dies by itself on a file twice is a ParseBudgetError ('crash') instead.
 */
export class ParserCrashedError extends Error {
  override name = 'ParserCrashedError';
}

/** The pool was closed (the process is shutting down) before the task finished. Transient. */
export class ParserPoolClosedError extends Error {
  override name = 'ParserPoolClosedError';
}
