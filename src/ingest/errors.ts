/**
 * Errors of the ingest module.
 *
 * The job runner decides between "fail the snapshot now" and "retry later" by class:
 * UnreadableTranscriptError means the bytes can never become a transcript, so retrying is
 * pointless; a crashed parser, a closed pool (shutdown) and I/O errors may pass; a timeout may
 * pass once (see snapshots/pipeline.ts); anything else is a bug and is not retried.
 */

/** The file can never be read as a transcript. `message` is a sentence meant for a person. */
export class UnreadableTranscriptError extends Error {
  override name = 'UnreadableTranscriptError';
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

/** A parser worker died (out of memory, crash) while handling the file. Transient. */
export class ParserCrashedError extends Error {
  override name = 'ParserCrashedError';
}

/** The pool was closed (the process is shutting down) before the task finished. Transient. */
export class ParserPoolClosedError extends Error {
  override name = 'ParserPoolClosedError';
}
