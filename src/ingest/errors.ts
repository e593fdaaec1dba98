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

/** The requested speaker label is not one of the transcript's labels. */
export class UnknownSpeakerError extends Error {
  override name = 'UnknownSpeakerError';
  readonly labels: string[];

  constructor(requested: string, labels: string[]) {
    super(`No speaker "${requested}" in this transcript; the speakers are: ${labels.join(', ') || '(none)'}`);
    this.labels = labels;
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
