/** One speaker turn of a transcript, in document order. Times are milliseconds from the start. */
export interface TranscriptTurn {
  speaker: string;
  text: string;
  startMs?: number;
  endMs?: number;
  /** A later part of one long labelled turn (over 400 words, cut at sentence ends): the speaker did not stop. */
  continues?: true;
}

/** What every input format (VTT, SRT, DOCX, PDF, plain text) is parsed into. */
export interface Transcript {
  turns: TranscriptTurn[];
  /**
   * True when the file names no speaker at all (auto-captions, a plain document): every turn is
   * the one voice "Speaker", whoever really spoke, and turns are ~120-word pieces cut at sentence
   * ends and pauses, not real speaker turns.
   */
  unlabelled?: true;
}

/** A file kind recognised from its bytes, never from its name. */
export type FileKind = 'vtt' | 'srt' | 'docx' | 'pdf' | 'txt';

/** How the mind's speaker label was chosen. */
export type Attribution = 'requested' | 'name' | 'inferred';

export interface SpeakerSummary {
  label: string;
  turns: number;
  words: number;
  isMind: boolean;
}
