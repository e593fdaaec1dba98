/** One speaker turn of a transcript, in document order. Times are milliseconds from the start. */
export interface TranscriptTurn {
  speaker: string;
  text: string;
  startMs?: number;
  endMs?: number;
}

/** What every input format (VTT, SRT, DOCX, PDF, plain text) is parsed into. */
export interface Transcript {
  turns: TranscriptTurn[];
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
