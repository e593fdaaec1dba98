/**
 * `mindprint fidelity --mind <mindId|name>`: how faithfully a mind answers, measured on its own
 * conversations held out in turn (GET /minds/{id}/fidelity): the trust line, the numbers behind
 * it and two example questions with the real and the simulated answer; `--json` prints the
 * service's answer as it is. With `--wait`, a pending check is waited for.
 */
import { fidelityText } from '../mcp/tools/fidelity.ts';
import { CliError, clientFromEnv, describeError } from './env.ts';
import { resolveMind } from './minds.ts';

export interface FidelityOptions {
  mind: string;
  wait?: boolean;
  /** Seconds to wait with --wait. */
  timeout?: number;
  json?: boolean;
}

const POLL_MS = 1000;

export async function runFidelity(opts: FidelityOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const client = clientFromEnv(env);
  try {
    const { mind } = await resolveMind(client, opts.mind);
    let f = await client.getMindFidelity(mind.id);
    const deadline = Date.now() + (opts.timeout ?? 300) * 1000;
    while (opts.wait && f.status === 'pending') {
      if (Date.now() > deadline) throw new CliError(`the fidelity check of ${mind.name} is still pending after ${opts.timeout ?? 300} s`);
      await new Promise((r) => setTimeout(r, POLL_MS));
      f = await client.getMindFidelity(mind.id);
    }
    process.stdout.write(opts.json ? `${JSON.stringify(f, null, 2)}\n` : `${fidelityText(mind.name, f)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, client.baseUrl));
  }
}
