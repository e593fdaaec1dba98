/**
 * `mindprint ask --mind <mindId|name> "<message>"`: the answer goes to stdout as it arrives (the
 * SSE stream of POST /simulate), nothing else, so it can be piped; the evidence quotes and the
 * ids to continue the conversation go to stderr.
 */
import { type AnswerWarning, type Evidence, type MindprintClient, type SimulateInput } from '@mindprint/client';
import { CliError, UUID_RE, clientFromEnv, describeError, useColor } from './env.ts';
import { resolveMind } from './minds.ts';

export interface AskOptions {
  mind: string;
  conversation?: string;
  snapshot?: string;
  /** A model id from GET /models (--model). */
  model?: string;
  /** false with --no-stream. */
  stream?: boolean;
}

interface Outcome {
  message: string;
  evidence: Evidence[];
  /** What to know before trusting the answer (evidence from a file that names no speakers…). */
  warnings: AnswerWarning[];
  conversationId: string;
  simulationId: string;
}

async function streamAnswer(client: MindprintClient, input: SimulateInput, signal: AbortSignal): Promise<Outcome> {
  let ids: { conversationId: string; simulationId: string } | null = null;
  let written = '';
  for await (const e of client.simulateStream(input, { signal })) {
    if (e.event === 'start') ids = { conversationId: e.data.conversationId, simulationId: e.data.simulationId };
    else if (e.event === 'delta') {
      process.stdout.write(e.data.text);
      written += e.data.text;
    } else if (e.event === 'error') {
      if (written) process.stdout.write('\n');
      throw new CliError(`the simulation failed: ${e.data.error} (${e.data.code})`);
    } else {
      // `done` carries the whole answer: print what the deltas did not (normally nothing).
      if (e.data.message.startsWith(written)) process.stdout.write(e.data.message.slice(written.length));
      const message = e.data.message || written;
      if (!message.endsWith('\n')) process.stdout.write('\n');
      if (!ids) throw new CliError('the event stream carried no start event (no conversation id)');
      return { message, evidence: e.data.evidence, warnings: e.data.warnings ?? [], ...ids };
    }
  }
  throw new CliError('the event stream ended without an answer');
}

function printTrailer(o: Outcome, mindId: string): void {
  const color = useColor(process.stderr);
  const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[22m` : s);
  const lines: string[] = [''];
  // Not dimmed: a warning is read before the quotes it is about.
  for (const w of o.warnings) lines.push(`mindprint: warning: ${w.message}`);
  const unlabelled = new Set(o.warnings.flatMap((w) => (w.code === 'unlabelled_speakers' ? (w.snapshotIds ?? []) : [])));
  if (o.evidence.length) {
    // "Their own words" only when no quote may be someone else's.
    lines.push(dim(unlabelled.size ? 'Evidence (quotes the answer rests on; those marked * come from a file that names no speakers and may be someone else’s words):' : 'Evidence (their own words the answer rests on):'));
    o.evidence.forEach((e, i) => lines.push(dim(`  ${i + 1}. ${unlabelled.has(e.snapshotId) ? '* ' : ''}"${e.quote.replace(/\s+/g, ' ').trim()}" (snapshot ${e.snapshotId})`)));
  } else {
    lines.push(dim('Evidence: none (no turn of this person matched the message).'));
  }
  lines.push(`conversationId: ${o.conversationId}`, dim(`simulationId: ${o.simulationId}`), dim(`Continue with: mindprint ask --mind ${mindId} --conversation ${o.conversationId} "<message>"`));
  process.stderr.write(lines.join('\n') + '\n');
}

/** Runs the command; resolves with the exit code. */
export async function runAsk(message: string, opts: AskOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!message.trim()) throw new CliError('the message must not be empty');
  for (const [flag, value] of [['--conversation', opts.conversation], ['--snapshot', opts.snapshot]] as const) {
    if (value !== undefined && !UUID_RE.test(value.trim())) throw new CliError(`${flag} must be a UUID, got "${value}"`);
  }
  const client = clientFromEnv(env);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const { mind } = await resolveMind(client, opts.mind);
    const input: SimulateInput = {
      mindId: mind.id,
      scenario: { message: message.trim() },
      ...(opts.conversation ? { conversationId: opts.conversation.trim() } : {}),
      ...(opts.snapshot ? { snapshotId: opts.snapshot.trim() } : {}),
      ...(opts.model?.trim() ? { selectedSimulationModel: opts.model.trim() } : {}),
    };
    let outcome: Outcome;
    if (opts.stream === false) {
      const r = await client.simulate(input, { signal: controller.signal });
      process.stdout.write(r.message.endsWith('\n') ? r.message : `${r.message}\n`);
      outcome = { ...r, warnings: r.warnings ?? [] };
    } else {
      outcome = await streamAnswer(client, input, controller.signal);
    }
    printTrailer(outcome, mind.id);
    return 0;
  } catch (err) {
    if (controller.signal.aborted) {
      process.stderr.write('\nmindprint: interrupted\n');
      return 130;
    }
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, client.baseUrl));
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
