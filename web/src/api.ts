/**
 * The dashboard's link to the service: the SDK (@mindprint/client, packages/client) with the user's key, the base path
 * the server wrote into index.html, the key's place in sessionStorage, and uploads with progress.
 * Shapes come from the SDK's types, generated from the service's OpenAPI document.
 */
import { MindprintApiError, MindprintClient, type CreatedSnapshot, type ResponseOf } from '@mindprint/client';

export { MindprintApiError, MindprintClient };
export type {
  Analysis,
  AnswerWarning,
  Evidence,
  Mind,
  Model,
  Psychometric,
  Simulation,
  SimulationWithMessages,
  Snapshot,
  SnapshotSpeakers,
  SnapshotStatus,
  TagWithCount,
  Usage,
} from '@mindprint/client';
// GET /minds/{id}/profile declares `profile` without a schema; its shape is the analysis type.
export type { MindProfile as Profile, ProfileFinding, ProfileTopic, ProfileTrait, TraitTrajectory } from '../../src/lib/analysis/profile.ts';
export type ApiKey = ResponseOf<'/api-keys', 'get'>['apiKeys'][number];
export type CreatedKey = ResponseOf<'/api-keys', 'post'>;
export type Message = ResponseOf<'/simulations/{simulationId}', 'get'>['messages'][number];

/** Written by the server into index.html (MINDPRINT_BASE_PATH); the default serves `vite` dev. */
export const basePath = document.querySelector<HTMLMetaElement>('meta[name="mindprint-base-path"]')?.content || '/api/svc';

const KEY_ITEM = 'mindprint.apiKey';
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_ITEM),
  save: (key: string) => sessionStorage.setItem(KEY_ITEM, key),
  clear: () => sessionStorage.removeItem(KEY_ITEM),
};

/**
 * A client for `key`. `onUnauthorized` runs on any 401 (the key was revoked or expired while
 * signed in): the app then forgets the key and shows the key form again.
 */
export function makeClient(key: string, onUnauthorized?: () => void): MindprintClient {
  return new MindprintClient({
    baseUrl: location.origin,
    basePath,
    apiKey: key,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 401) onUnauthorized?.();
      return res;
    },
  });
}

/** What to tell the user about a failed call. */
export function errorText(err: unknown): string {
  if (err instanceof MindprintApiError) return `${err.message} (${err.status} ${err.code})`;
  if (err instanceof Error) return err.message;
  return String(err);
}

export interface UploadFields {
  /** yyyy-mm-dd or an ISO date-time; empty means now. */
  mindsetDate?: string;
  /** The transcript's label for this person; empty means matched by the mind's name. */
  speaker?: string;
}

export interface Upload {
  done: Promise<CreatedSnapshot>;
  abort(): void;
}

/**
 * POST /minds/{id}/snapshots as multipart with XMLHttpRequest, whose upload events give
 * progress (fetch has none for request bodies).
 */
export function uploadTranscript(
  client: MindprintClient,
  key: string,
  mindId: string,
  file: File,
  fields: UploadFields,
  onProgress: (sent: number, total: number) => void,
  onUnauthorized?: () => void,
): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<CreatedSnapshot>((resolve, reject) => {
    const form = new FormData();
    form.append('file', file, file.name);
    if (fields.mindsetDate) form.append('mindsetDate', fields.mindsetDate);
    if (fields.speaker) form.append('speaker', fields.speaker);
    xhr.open('POST', `${client.baseUrl}/minds/${encodeURIComponent(mindId)}/snapshots`);
    xhr.setRequestHeader('authorization', `Bearer ${key}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: any = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: keep the text */
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as CreatedSnapshot);
      if (xhr.status === 401) onUnauthorized?.();
      reject(new MindprintApiError(xhr.status, body?.code ?? `HTTP_${xhr.status}`, body?.message ?? (xhr.statusText || 'Upload failed'), body));
    };
    xhr.onerror = () => reject(new Error('The upload did not reach the server (network error)'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
