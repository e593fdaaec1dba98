/**
 * Transcript ingestion: recognise an uploaded file by its bytes, parse it into speaker turns off
 * the event loop in budgeted parser processes, and decide which speaker is the mind.
 */
export type { Attribution, FileKind, SpeakerSummary, Transcript, TranscriptTurn } from './types.ts';
export { sniffFile } from './sniff.ts';
export { DEFAULT_PARSE_BUDGETS, wallMs, type ParseBudgets } from './budgets.ts';
export type { ParseOptions } from './parse.ts';
export { attributeSpeaker, matchSpeakerLabel, resolveSpeakerLabel, type AttributeOptions, type AttributionResult, type LabelMatch } from './attribution.ts';
export { countWords } from './words.ts';
export { isAutoCaptionTrack } from './labels.ts';
export { SINGLE_SPEAKER_LABEL } from './layout.ts';
export { UnreadableTranscriptError, UnknownSpeakerError, ParseTimeoutError, ParserCrashedError, ParserPoolClosedError, ParseBudgetError, type ParseLimit } from './errors.ts';
