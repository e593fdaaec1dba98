import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { QUEUE, queueDefinitions } from '../../platform/jobs/queues.ts';
import { clientGoneSignal } from '../../platform/http/client-gone.ts';
import { createRun, executeRun, httpErrorOf, prepareRun, runErrorOf } from './run.ts';
import {
  ListSimulationsQuery,
  Message,
  Model,
  QueuedResponse,
  ShareBody,
  SimulateBody,
  SimulateResponse,
  Simulation,
  SimulationParams,
  UnshareParams,
} from './schemas.ts';
import * as sims from './service.ts';
import { staleLimits } from './service.ts';
import { openSse } from './sse.ts';

const SIMULATE_DESCRIPTION = `Answers \`scenario.message\` the way the person would, from what they really said: the mind's own turns in its completed, linked snapshots (with \`snapshotId\`, only that snapshot and earlier ones by \`mindsetDate\`).

A simulation is a conversation: without \`conversationId\` a new simulation is created (its title is the start of the message); with it, the message and the answer are appended to that conversation (its mind, model and as-of snapshot are kept; \`selectedSimulationModel\` switches the model, and the conversation keeps the model chosen last for the turns after). A follow-up ("Why?", "Give me an example.") is answered from the conversation so far, with what its earlier answers did not already quote.

**Three ways to get the answer**
- Default: 200 \`{message, simulationId, conversationId, messageId, model, evidence, analysis, warnings}\`. \`evidence\` are verbatim quotes of the person's turns the answer rests on; \`analysis\` is what they would be thinking, feeling, saying and doing; \`warnings\` (a Mindprint addition, \`[{code, message, snapshotIds?}]\`, empty when nothing) says what to know before trusting the answer — \`unlabelled_speakers\` when some evidence comes from a file that names no speakers, so those quotes may be someone else's words (show \`message\` with the answer). The stored message's \`content.warnings\` keeps them. If an LLM provider fails, 502 with \`engineCode\`, \`simulationId\` and \`messageId\` (the stored message is \`failed\`).
- \`stream: true\`: \`text/event-stream\` with these events (each \`data:\` is one JSON object):
  - \`start\` \`{simulationId, conversationId, messageId}\` — first, once the messages are stored;
  - \`delta\` \`{text}\` — pieces of the answer; concatenated they are the answer;
  - \`done\` \`{message, evidence, analysis, model, warnings}\` — last, once the answer is stored (\`warnings\` as in the JSON answer);
  - \`error\` \`{error, code}\` — last, instead of \`done\`, when the run failed (the stored message is \`failed\` with \`errors\`).
  Closing the connection cancels the generation; the stored message then ends \`failed\` with code \`aborted\`, keeping the text streamed so far (or \`completed\` if it had finished). While it streams, \`GET /simulations/{id}\` shows the message \`streaming\` with the text so far (saved about once a second).
- \`runInBackground: true\`: 200 at once \`{message: "Simulation queued", simulationId, conversationId, messageId, status: "pending"}\`; a worker produces the answer, and \`GET /simulations/{simulationId}\` shows the assistant message go from \`pending\` to \`completed\` (or \`failed\` with \`errors\`).

400 when the message is empty, the mind has no completed, linked snapshot, the conversation is another mind's, or the model is unknown (the message lists the available models). 404 for an unknown mind, snapshot or conversation; 403 for a conversation that is neither yours nor shared with you.`;

/** The event stream of `stream: true`, as its schema describes it (text/event-stream). */
const SSE_EVENTS = `Server-sent events, one JSON object per \`data:\` line, in this order:
- \`event: start\` — \`{simulationId, conversationId, messageId}\`, once the messages are stored;
- \`event: delta\` — \`{text}\`, a piece of the answer; the pieces concatenated are the answer;
- \`event: done\` — \`{message, evidence, analysis, model, warnings}\`, last, once the answer is stored; \`warnings\` is \`[{code, message, snapshotIds?}]\` (empty when nothing; \`unlabelled_speakers\`: some evidence comes from a file that names no speakers);
- \`event: error\` — \`{error, code}\`, last instead of \`done\` when the run failed (the stored message is \`failed\`, with the text streamed so far).`;

export const simulationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  // When GET /simulations/{id} calls a run lost: after its job's last retry could have run (service.ts).
  const limits = staleLimits(deps.config, queueDefinitions(deps.config).find((q) => q.name === QUEUE.runSimulation)?.retryLimit ?? 0);

  app.post('/simulate', {
    schema: {
      tags: ['Simulations'],
      summary: 'Run a simulation',
      description: SIMULATE_DESCRIPTION,
      body: SimulateBody,
      response: {
        200: {
          description: 'The answer; with `runInBackground`, the queued run; with `stream`, the event stream.',
          content: {
            'application/json': { schema: Type.Union([SimulateResponse, QueuedResponse]) },
            'text/event-stream': { schema: Type.String({ description: SSE_EVENTS }) },
          },
        },
        ...errorResponses(403, 404, 413, 415, 502),
      },
    },
  }, async (req, reply) => {
    // Listening from the start: a client that leaves while the run is prepared cancels it too.
    const gone = clientGoneSignal(reply);
    const run = await prepareRun(deps, req.caller, req.body);

    if (req.body.runInBackground) {
      const ids = await createRun(deps, run, 'background');
      return { message: 'Simulation queued' as const, simulationId: ids.simulationId, conversationId: ids.conversationId, messageId: ids.messageId, status: 'pending' as const };
    }

    const ids = await createRun(deps, run, 'now');
    if (!req.body.stream) {
      try {
        const result = await executeRun(deps, run.scope, run.engine, ids, run.message, { signal: gone });
        return { message: result.text, simulationId: ids.simulationId, conversationId: ids.conversationId, messageId: ids.messageId, model: run.engine.id, evidence: result.evidence, analysis: result.analysis, warnings: result.warnings };
      } catch (err) {
        throw httpErrorOf(err, ids);
      }
    }

    const sse = openSse(reply, gone);
    sse.send('start', { simulationId: ids.simulationId, conversationId: ids.conversationId, messageId: ids.messageId });
    executeRun(deps, run.scope, run.engine, ids, run.message, { signal: sse.signal, onDelta: (text) => sse.send('delta', { text }) }).then(
      (result) => sse.end('done', { message: result.text, evidence: result.evidence, analysis: result.analysis, model: run.engine.id, warnings: result.warnings }),
      (err: unknown) => {
        const { code, message } = runErrorOf(err);
        sse.end('error', { error: message, code });
      },
    );
    // The typed reply knows only the JSON responses; the event stream is documented above.
    return reply.send(sse.stream as never);
  });

  app.get('/models', {
    schema: {
      tags: ['Simulations'],
      summary: 'List simulation models',
      description: 'The models `selectedSimulationModel` can name: the embedded extractive engine always, and the configured LLM models (MINDPRINT_LLM_MODEL). `default` marks the one used when none is named: MINDPRINT_DEFAULT_MODEL when set, else the first configured LLM model, else the extractive engine.',
      response: { 200: Type.Object({ models: Type.Array(Model) }), ...errorResponses() },
    },
  }, async () => ({ models: deps.engines.models() }));

  app.get('/simulations', {
    schema: {
      tags: ['Simulations'],
      summary: 'List simulations',
      description: 'Your simulations and those shared with you, most recently active first: a conversation moves to the top when a message is added to it or an answer completes (`updatedAt`). `limit` defaults to 20 (at most 100); `count` is the total.',
      querystring: ListSimulationsQuery,
      response: { 200: Type.Object({ simulations: Type.Array(Simulation), count: Type.Integer() }), ...errorResponses() },
    },
  }, async (req) => sims.listSimulations(db, req.caller, req.query));

  app.get('/simulations/:simulationId', {
    schema: {
      tags: ['Simulations'],
      summary: 'Get a simulation',
      description: 'The simulation and its messages in order. Message `status` is pending | streaming | completed | failed; `content` is `{text, evidence?, analysis?, model?}` (null while an answer is pending; while it streams, the text so far, saved about once a second; a failed answer keeps the text produced before the failure); `errors` is null or a list of `{code, message}`; `framework` is the framework that produced the message (`mindprint` for this service\'s engines).',
      params: SimulationParams,
      response: { 200: Type.Object({ simulation: Simulation, messages: Type.Array(Message) }), ...errorResponses(403, 404) },
    },
  }, async (req) => sims.getSimulation(deps, req.caller, req.params.simulationId, limits));

  app.delete('/simulations/:simulationId', {
    schema: {
      tags: ['Simulations'],
      summary: 'Delete a simulation',
      description: 'Deletes the simulation and its messages. Only its owner can.',
      params: SimulationParams,
      response: { 200: Type.Object({ message: Type.String(), simulationId: Type.String() }), ...errorResponses(403, 404) },
    },
  }, async (req) => {
    await sims.deleteSimulation(db, req.caller, req.params.simulationId);
    return { message: 'Simulation deleted', simulationId: req.params.simulationId };
  });

  app.post('/simulations/:simulationId/share', {
    schema: {
      tags: ['Simulations'],
      summary: 'Share a simulation',
      description: 'Shares it with users of your organization (by id or email; see GET /users). Only the owner can. Unknown users are a 400 that names them.',
      params: SimulationParams,
      body: ShareBody,
      response: { 200: Type.Object({ simulation: Simulation }), ...errorResponses(403, 404, 413, 415) },
    },
  }, async (req) => ({ simulation: await sims.shareSimulation(db, req.caller, req.params.simulationId, req.body) }));

  app.delete('/simulations/:simulationId/share/:userId', {
    schema: {
      tags: ['Simulations'],
      summary: 'Stop sharing a simulation with a user',
      description: 'Only the owner can. Removing a user it is not shared with changes nothing.',
      params: UnshareParams,
      response: { 200: Type.Object({ simulation: Simulation }), ...errorResponses(403, 404) },
    },
  }, async (req) => ({ simulation: await sims.unshareSimulation(db, req.caller, req.params.simulationId, req.params.userId) }));
};
