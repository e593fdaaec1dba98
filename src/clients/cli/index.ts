/**
 * The client subcommands of `mindprint`, which use a running Mindprint over HTTP through the
 * SDK: `upload` (transcripts → snapshots, with progress), `ask` (a streamed simulation) and
 * `webhooks add|list|remove|test`.
 * The commands' code is loaded only when one runs.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_MINDPRINT_URL } from '../mcp/env.ts';
import { CLIENT_ENV_HELP, CliError } from './env.ts';

/** `--url` and `--key`, which take precedence over MINDPRINT_URL and MINDPRINT_API_KEY. */
export interface ConnectionOptions {
  url?: string;
  key?: string;
}

/** Adds `--url` and `--key` to a command that talks to a running Mindprint. */
export function connectionOptions(command: Command): Command {
  return command
    .option('--url <url>', `the Mindprint service (default: $MINDPRINT_URL, else ${DEFAULT_MINDPRINT_URL})`)
    .option('--key <apiKey>', 'an API key, mp_… (default: $MINDPRINT_API_KEY)');
}

/** The environment with the flags applied over it: what the client commands and `mcp` read their settings from. */
export function withConnectionEnv(opts: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, ...(opts.url !== undefined && { MINDPRINT_URL: opts.url }), ...(opts.key !== undefined && { MINDPRINT_API_KEY: opts.key }) };
}

const positiveSeconds = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of seconds, at least 1');
  return Number(value);
};

/** Runs a command body: a CliError is one line on stderr and exit code 1, never a stack trace. */
async function run(body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`mindprint: ${err.message}\n`);
    process.exitCode = 1;
  }
}

export function registerClientCommands(program: Command): void {
  connectionOptions(program.command('upload'))
    .description(
      'Upload transcripts (WebVTT, SRT, DOCX, PDF or text) to a mind as snapshots, one after another, and wait for each to be processed. ' +
        'On a terminal each file has a progress line (bytes sent, then pending → processing → completed/failed with the elapsed time); ' +
        'otherwise one line per change of state. Exits with 1 if any file failed, printing why. ' +
        'A file that names no speakers (auto-captions, an unlabelled document) gets a warning line on stderr: every voice in it counts as the mind.',
    )
    .argument('<files...>', 'transcript files')
    .requiredOption('--mind <mindId|name>', 'the mind: its id, or its exact name (found by search; an ambiguous name is refused)')
    .option('--create', 'create the mind when no mind has that name')
    .option('--date <ISO>', 'mindset date of the conversations, e.g. 2024-05-01 or 2024-05-01T14:30:00Z (default: each file’s own date — a date key in its header such as publish_date, or a date in its name — else the day of the upload, said on stderr)')
    .option('--speaker <label>', 'the speaker label in the files that is this mind, matched ignoring case, by a unique prefix ("Lenny" → "Lenny Rachitsky") or by name ("Lenny Rachitsky" → "Lenny"); default: matched by the mind’s name')
    .option('--timeout <seconds>', 'give up waiting for a file’s processing after this long', positiveSeconds, 600)
    .option('--json', 'print a JSON summary on stdout ({mind, files: [{file, bytes, status, snapshotId, error, elapsedMs, mindSpeaker, speakersLabelled, warning, mindsetDate, dateFrom}], completed, failed}); progress goes to stderr')
    .addHelpText('after', `\nExamples:\n  mindprint upload --mind "Ada Lovelace" --create --date 1843-07-10 letters.txt interview.vtt\n  mindprint upload --mind 3f1c…e9 --json debate.vtt > summary.json\n\n${CLIENT_ENV_HELP}\n`)
    .action((files: string[], opts: ConnectionOptions & { mind: string; create?: boolean; date?: string; speaker?: string; timeout: number; json?: boolean }) =>
      run(async () => (await import('./upload.ts')).runUpload(files, opts, withConnectionEnv(opts))),
    );

  connectionOptions(program.command('ask'))
    .description(
      'Ask a mind a question (or tell it a scenario) and print the answer on stdout as it is generated. ' +
        'Then the evidence — the person’s own quotes the answer rests on — and the conversation id go to stderr: pass it back with --conversation to continue.',
    )
    .argument('<message>', 'what the person is asked or told')
    .requiredOption('--mind <mindId|name>', 'the mind: its id, or its exact name (found by search; an ambiguous name is refused)')
    .option('--conversation <id>', 'continue this conversation (the conversationId printed by an earlier ask)')
    .option('--snapshot <id>', 'answer as of this snapshot: only it and earlier snapshots are used')
    .option('--model <id>', 'the simulation model (an id from GET /models); default: the server\'s default, or the conversation\'s model')
    .option('--no-stream', 'wait for the whole answer instead of streaming it')
    .addHelpText(
      'after',
      `\nExamples:\n  mindprint ask --mind "Ada Lovelace" "What do you make of the Analytical Engine?"\n  mindprint ask --mind 3f1c…e9 --conversation 7a2b…41 "And poetry?"\n\n${CLIENT_ENV_HELP}\n`,
    )
    .action((message: string, opts: ConnectionOptions & { mind: string; conversation?: string; snapshot?: string; model?: string; stream: boolean }) =>
      run(async () => (await import('./ask.ts')).runAsk(message, opts, withConnectionEnv(opts))),
    );

  connectionOptions(program.command('export'))
    .description(
      'Export a mind with its memory bank (tags, snapshots, speaker turns, analyses) as a bundle of format mindprint.mind.v1 on stdout, streamed as the service sends it. ' +
        'Import it on this or another server with `mindprint import`.',
    )
    .requiredOption('--mind <mindId|name>', 'the mind: its id, or its exact name (found by search; an ambiguous name is refused)')
    .option('--artifacts', 'add the original transcript files (base64), as long as the bundle stays within the server’s upload size limit')
    .option('-o, --output <file>', 'write to this file (whole or not at all) instead of stdout')
    .addHelpText('after', `\nExamples:\n  mindprint export --mind "Ada Lovelace" > ada.mindprint.json\n  mindprint export --mind 3f1c…e9 --artifacts --output ada.mindprint.json\n\n${CLIENT_ENV_HELP}\n`)
    .action((opts: ConnectionOptions & { mind: string; artifacts?: boolean; output?: string }) =>
      run(async () => (await import('./transfer.ts')).runExport(opts, withConnectionEnv(opts))),
    );

  connectionOptions(program.command('import'))
    .description(
      'Import a mind bundle (from `mindprint export` or GET /minds/{mindId}/export; gzipped or not) as a new mind of the key’s organization, and print what was created. ' +
        'Its snapshots are completed at once; the semantic index is built in the background.',
    )
    .argument('<file>', 'the bundle file, or - for stdin')
    .option('--json', 'print the result as JSON ({mindId, name, slug, snapshots, turns, psychometrics, keyTopics, findings, artifacts, semanticIndex})')
    .addHelpText('after', `\nExamples:\n  mindprint import ada.mindprint.json\n  mindprint export --mind "Ada Lovelace" --url http://old:3000 | mindprint import - --url http://new:3000\n\n${CLIENT_ENV_HELP}\n`)
    .action((file: string, opts: ConnectionOptions & { json?: boolean }) => run(async () => (await import('./transfer.ts')).runImport(file, opts, withConnectionEnv(opts))));

  const webhooks = program
    .command('webhooks')
    .description('The organization’s webhooks: endpoints its events are POSTed to, signed per Standard Webhooks (see docs/api.md#webhooks)');
  connectionOptions(webhooks.command('add'))
    .description('Register an endpoint; prints its signing secret (whsec_…) on stdout, the only time it is shown')
    .argument('<url>', 'the endpoint, http(s); private and loopback addresses are refused unless the server allows them')
    .requiredOption('--events <list>', 'comma-separated events, or all: snapshot.completed, snapshot.failed, snapshot.reprocessing, snapshot.indexed, simulation.completed, simulation.failed, mind.deleted')
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print {webhook, secret} as JSON')
    .addHelpText('after', `\nExample:\n  mindprint webhooks add https://hooks.example.org/mindprint --events snapshot.completed,snapshot.failed\n\n${CLIENT_ENV_HELP}\n`)
    .action((url: string, opts: ConnectionOptions & { events: string; description?: string; json?: boolean }) =>
      run(async () => (await import('./webhooks.ts')).runWebhooksAdd(url, opts, withConnectionEnv(opts))),
    );
  connectionOptions(webhooks.command('list'))
    .description('List the webhooks: id, status (a disabled one says why), URL, events')
    .option('--json', 'print {webhooks} as JSON')
    .addHelpText('after', `\n${CLIENT_ENV_HELP}\n`)
    .action((opts: ConnectionOptions & { json?: boolean }) => run(async () => (await import('./webhooks.ts')).runWebhooksList(opts, withConnectionEnv(opts))));
  connectionOptions(webhooks.command('remove'))
    .description('Delete a webhook and its deliveries')
    .argument('<webhookId>', 'the webhook id (from webhooks list)')
    .addHelpText('after', `\n${CLIENT_ENV_HELP}\n`)
    .action((id: string, opts: ConnectionOptions) => run(async () => (await import('./webhooks.ts')).runWebhooksRemove(id, withConnectionEnv(opts))));
  connectionOptions(webhooks.command('test'))
    .description('Send a signed webhook.test message to the endpoint now and print the outcome; exits with 1 unless it answered 2xx')
    .argument('<webhookId>', 'the webhook id (from webhooks list)')
    .option('--json', 'print {delivery} as JSON')
    .addHelpText('after', `\n${CLIENT_ENV_HELP}\n`)
    .action((id: string, opts: ConnectionOptions & { json?: boolean }) => run(async () => (await import('./webhooks.ts')).runWebhooksTest(id, opts, withConnectionEnv(opts))));

  connectionOptions(program.command('fidelity'))
    .description(
      'How faithfully a mind answers, measured on its own conversations: each is held out in turn, the questions asked in it are put to a mind built from the rest, ' +
        'and the answers are compared with what the person really said. Prints the trust line, the numbers behind it and two example questions with the real and the simulated answer.',
    )
    .requiredOption('--mind <mindId|name>', 'the mind: its id, or its exact name (found by search; an ambiguous name is refused)')
    .option('--wait', 'wait while the check is pending (computed in the background after the mind’s snapshots change)')
    .option('--timeout <seconds>', 'give up waiting after this long (with --wait)', positiveSeconds, 300)
    .option('--json', 'print the service’s answer (GET /minds/{id}/fidelity) as JSON')
    .addHelpText('after', `\nExamples:\n  mindprint fidelity --mind "Ada Lovelace"\n  mindprint fidelity --mind 3f1c…e9 --wait --json\n\n${CLIENT_ENV_HELP}\n`)
    .action((opts: ConnectionOptions & { mind: string; wait?: boolean; timeout: number; json?: boolean }) =>
      run(async () => (await import('./fidelity.ts')).runFidelity(opts, withConnectionEnv(opts))),
    );
}
