-- Whether the upload recognised the file, by its format, as an automatic speech-recognition caption
-- track (YouTube auto-captions: word-timed cues, no speaker named). Such a file names no speakers,
-- so the upload answer can say at once that every voice in it will count as the mind, before the
-- file is processed. Artifacts uploaded before this column existed were not checked: false.
ALTER TABLE "artifacts" ADD COLUMN "auto_captions" boolean DEFAULT false NOT NULL;
