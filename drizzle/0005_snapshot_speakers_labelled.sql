-- Whether the transcript named its speakers (null until the snapshot is processed). Shown with the
-- snapshot's details, so a user sees why a mind built from auto-captions holds every voice of the file.
ALTER TABLE "snapshots" ADD COLUMN "speakers_labelled" boolean;
--> statement-breakpoint
-- Snapshots processed before this column existed: ingest names the one voice of a file without
-- speaker labels "Speaker", so a completed snapshot whose only speaker is "Speaker" came from such a file.
UPDATE "snapshots" SET "speakers_labelled" = NOT (jsonb_array_length("speakers") = 1 AND "speakers"->0->>'label' = 'Speaker')
WHERE "status" = 'completed' AND jsonb_typeof("speakers") = 'array';
