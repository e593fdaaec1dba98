/**
 * Moving a mind between servers: the mind page's Export button (the bundle of
 * GET /minds/{id}/export, downloaded as a file) and the minds list's Import control (a bundle
 * file into POST /minds/import, then the new mind opens).
 */
import { useRef, useState } from 'react';
import { errorText } from '../api.ts';
import { ErrorNote, navigate, useAction, useSession } from '../ui.tsx';

/** Saves a blob under `name` through a temporary link: the API needs the key, so a plain link cannot fetch it. */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ExportMind({ mindId }: { mindId: string }) {
  const { client } = useSession();
  const [withFiles, setWithFiles] = useState(false);
  const exporting = useAction(async () => {
    const res = await client.exportMindResponse(mindId, { artifacts: withFiles });
    const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'mind.mindprint.json';
    save(await res.blob(), name);
  });
  return (
    <div className="transfer">
      <button type="button" className="subtle" onClick={() => void exporting.run()} disabled={exporting.pending} title="Download the mind with its snapshots, turns and analyses, to import here or on another server">
        {exporting.pending ? 'Exporting…' : 'Export'}
      </button>
      <label className="small muted">
        <input type="checkbox" checked={withFiles} onChange={(e) => setWithFiles(e.target.checked)} /> with original files
      </label>
      <ErrorNote error={exporting.error} />
    </div>
  );
}

/** The Import button and its file input; a refusal goes to `onError` (null when a new import starts), for the page to show where it fits. */
export function ImportMind({ onError }: { onError: (error: string | null) => void }) {
  const { client } = useSession();
  const input = useRef<HTMLInputElement>(null);
  const importing = useAction(async (file: File) => {
    onError(null);
    try {
      const imported = await client.importMind(file);
      navigate(`/minds/${imported.mindId}`);
    } catch (err) {
      onError(`The import failed: ${errorText(err)}`);
    }
  });
  return (
    <>
      <button type="button" className="subtle" onClick={() => input.current?.click()} disabled={importing.pending} title="Create a mind from a file exported by Mindprint">
        {importing.pending ? 'Importing…' : 'Import'}
      </button>
      <input
        ref={input}
        type="file"
        hidden
        aria-label="Import a mind from a file"
        accept=".json,.gz,application/json,application/vnd.mindprint.mind+json,application/gzip"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void importing.run(file);
        }}
      />
    </>
  );
}
