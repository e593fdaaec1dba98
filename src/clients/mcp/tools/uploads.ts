/**
 * get_signed_upload_url, upload_file_to_signed_url and upload_text_to_signed_url: a transcript's
 * bytes reach the service through a signed URL (valid one hour, once), then create_snapshot
 * turns the artifact into a snapshot.
 *
 * upload_file_to_signed_url reads a file where the MCP server runs. Over stdio that is the user's
 * machine; over HTTP it is the Mindprint server, which must not read its own disk for a caller,
 * so there it refuses and points to upload_text_to_signed_url or a PUT of the assistant's own.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SignedUrlContentType } from '@mindprint/client';
import { z } from 'zod';
import { CREATES, defineTool, plural, uuid, type ToolContext } from './define.ts';
import { ToolError } from '../errors.ts';

/** What the service accepts (it detects the real type from the bytes; this one must match between URL and PUT). */
const CONTENT_TYPES = 'text/vtt, application/x-subrip, text/plain, text/markdown, application/pdf, application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/octet-stream';
/** Remembered signed URLs per process (stdio lives long; each HTTP request is a fresh server). */
const MAX_REMEMBERED = 200;

const contentType = z.string().trim().min(1).max(200).describe(`The file's type, the same as given to get_signed_upload_url: ${CONTENT_TYPES}`);
const signedUrl = z.url().max(4096).describe('The signedUrl answered by get_signed_upload_url');

const Uploaded = {
  artifactId: z.string(),
  size: z.number().describe('Bytes received'),
  sha256: z.string(),
};

/**
 * The upload tools PUT only to a URL this server handed out, or to the service's own /uploads/
 * path: a local file must never be sent to a host the assistant was talked into naming.
 */
function checkUploadUrl(ctx: ToolContext, url: string): void {
  if (ctx.issuedUploadUrls.has(url)) return;
  const target = new URL(url);
  const service = new URL(ctx.client().baseUrl);
  if (target.origin === service.origin && /\/uploads\/[^/]+$/.test(target.pathname)) return;
  throw new ToolError(
    `Refusing to upload to ${target.origin}: not a signed URL of this Mindprint service (${service.origin}). Get one with get_signed_upload_url and pass its signedUrl unchanged` +
      (ctx.transport === 'http' ? ' (when the service keeps uploads in S3, its signed URLs point at the bucket: PUT the bytes there yourself, then create_snapshot).' : '.'),
  );
}

const sizeText = (bytes: number) => (bytes < 1024 ? plural(bytes, 'byte') : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
const nextStep = (artifactId: string) => `Next: create_snapshot with this artifactId (${artifactId}) and the mind's id.`;

export function registerUploadTools(server: McpServer, ctx: ToolContext): void {
  getSignedUploadUrl(server, ctx);
  uploadFileToSignedUrl(server, ctx);
  uploadTextToSignedUrl(server, ctx);
}

function getSignedUploadUrl(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'get_signed_upload_url',
    {
      title: 'Get a signed upload URL',
      description:
        'Reserves an artifact for a transcript of the mind and returns a URL to PUT the file’s bytes to, once, within an hour, with the same Content-Type. ' +
        `Transcripts: WebVTT, SRT, plain text, Markdown, PDF or DOCX (${CONTENT_TYPES}); the service detects the real type from the bytes. ` +
        'Then upload_file_to_signed_url (a local file) or upload_text_to_signed_url (text), then create_snapshot with the artifactId.',
      input: {
        mindId: uuid('The mind id (from get_all_minds, search_minds or create_mind)'),
        fileName: z.string().trim().min(1).max(255).describe('The file’s name, e.g. "interview.vtt" (kept for the record and shown in list_snapshots)'),
        contentType,
      },
      output: { signedUrl: z.string(), artifactId: z.string(), expiresAt: z.string(), fileName: z.string(), contentType: z.string() },
      annotations: CREATES,
    },
    async ({ mindId, fileName, contentType }) => {
      // The service checks the type against its list (a 400 that lists them); the tool passes on what it was given.
      const signed = await ctx.client().getSignedUploadUrl(mindId, { fileName, contentType: contentType as SignedUrlContentType });
      if (ctx.issuedUploadUrls.size >= MAX_REMEMBERED) ctx.issuedUploadUrls.delete(ctx.issuedUploadUrls.values().next().value!);
      ctx.issuedUploadUrls.add(signed.signedUrl);
      return {
        text: `Signed URL for ${signed.fileName} (${signed.contentType}), artifact ${signed.artifactId}, valid until ${signed.expiresAt}, for one upload:\n${signed.signedUrl}`,
        data: { signedUrl: signed.signedUrl, artifactId: signed.artifactId, expiresAt: signed.expiresAt, fileName: signed.fileName, contentType: signed.contentType },
      };
    },
  );
}

function uploadFileToSignedUrl(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'upload_file_to_signed_url',
    {
      title: 'Upload a local file to a signed URL',
      description:
        ctx.transport === 'stdio'
          ? 'Reads a transcript file on this computer and PUTs it to a signed URL from get_signed_upload_url (same contentType). Then create_snapshot with the artifactId.'
          : 'Not available on this remote (HTTP) connection: the server cannot read files on your computer. Use upload_text_to_signed_url with the transcript’s text, or PUT the file to the signedUrl yourself.',
      input: {
        signedUrl,
        filePath: z.string().trim().min(1).max(4096).describe('Path of the file on this computer (absolute, or relative to the MCP server’s working directory; ~ is the home directory)'),
        contentType,
      },
      output: { ...Uploaded, filePath: z.string().describe('The file that was read') },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ signedUrl, filePath, contentType }) => {
      if (ctx.transport !== 'stdio') {
        throw new ToolError(
          'upload_file_to_signed_url reads a file on the machine the MCP server runs on, and this is the remote (HTTP) Mindprint server: it cannot see your files. ' +
            `Send the transcript’s text with upload_text_to_signed_url, or PUT the file to the signed URL yourself (curl -X PUT -H 'Content-Type: ${contentType}' --data-binary @${filePath} '<signedUrl>'), ` +
            'or connect the local server (`mindprint mcp`, stdio), which can read files.',
        );
      }
      checkUploadUrl(ctx, signedUrl);
      const file = await openLocalFile(filePath, contentType);
      const uploaded = await ctx.client().uploadToSignedUrl(signedUrl, file.blob, contentType);
      return {
        text: `Uploaded ${file.path} (${sizeText(uploaded.size)}) as artifact ${uploaded.artifactId}. ${nextStep(uploaded.artifactId)}`,
        data: { artifactId: uploaded.artifactId, size: uploaded.size, sha256: uploaded.sha256, filePath: file.path },
      };
    },
  );
}

function uploadTextToSignedUrl(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'upload_text_to_signed_url',
    {
      title: 'Upload a transcript’s text to a signed URL',
      description:
        'PUTs transcript text (WebVTT, SRT or plain text, e.g. what the user pasted) to a signed URL from get_signed_upload_url (same contentType). ' +
        'Speaker names in the text ("Name: …" lines, <v Name> cues) tell the person’s words from the others’. Then create_snapshot with the artifactId.',
      input: {
        signedUrl,
        content: z.string().min(1).describe('The whole transcript text'),
        contentType,
      },
      output: Uploaded,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ signedUrl, content, contentType }) => {
      checkUploadUrl(ctx, signedUrl);
      const uploaded = await ctx.client().uploadToSignedUrl(signedUrl, content, contentType);
      return {
        text: `Uploaded the text (${sizeText(uploaded.size)}) as artifact ${uploaded.artifactId}. ${nextStep(uploaded.artifactId)}`,
        data: { artifactId: uploaded.artifactId, size: uploaded.size, sha256: uploaded.sha256 },
      };
    },
  );
}

/** The file as a Blob streamed from disk; missing, unreadable or not-a-file paths are clear tool errors. */
async function openLocalFile(filePath: string, contentType: string): Promise<{ path: string; blob: Blob }> {
  const [{ openAsBlob }, { stat }, path, os] = await Promise.all([import('node:fs'), import('node:fs/promises'), import('node:path'), import('node:os')]);
  const resolved = path.resolve(filePath.replace(/^~(?=$|[/\\])/, os.homedir()));
  let info;
  try {
    info = await stat(resolved);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ToolError(code === 'ENOENT' ? `No file at ${resolved}.` : `Cannot read ${resolved}: ${code ?? (err as Error).message}.`);
  }
  if (!info.isFile()) throw new ToolError(`${resolved} is not a file.`);
  if (info.size === 0) throw new ToolError(`${resolved} is empty.`);
  try {
    return { path: resolved, blob: await openAsBlob(resolved, { type: contentType }) };
  } catch (err) {
    throw new ToolError(`Cannot read ${resolved}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}
