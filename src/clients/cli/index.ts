/**
 * The client subcommands of `mindprint`, which use a running Mindprint over HTTP through the
 * SDK: `upload` (transcripts → snapshots, with progress) and `ask` (a streamed simulation).
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
    .option('--date <ISO>', 'mindset date of the conversations, e.g. 2024-05-01 or 2024-05-01T14:30:00Z (default: now)')
    .option('--speaker <label>', 'the speaker label in the files that is this mind, matched ignoring case, by a unique prefix ("Lenny" → "Lenny Rachitsky") or by name ("Lenny Rachitsky" → "Lenny"); default: matched by the mind’s name')
    .option('--timeout <seconds>', 'give up waiting for a file’s processing after this long', positiveSeconds, 600)
    .option('--json', 'print a JSON summary on stdout ({mind, files: [{file, bytes, status, snapshotId, error, elapsedMs, mindSpeaker, speakersLabelled, warning}], completed, failed}); progress goes to stderr')
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
