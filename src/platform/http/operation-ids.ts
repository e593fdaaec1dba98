/**
 * The `operationId` of every operation in the OpenAPI document, keyed by "METHOD /path" as the
 * document writes it (relative to the base path, `{param}` placeholders). They name what a client
 * generator or a fuzzer calls each operation, and match the methods of @mindprint/client.
 * app.ts adds them to the document; a route may also set `operationId` in its own schema, which
 * wins. test/e2e/openapi-contract.test.ts fails while any documented operation has none.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /api-keys': 'listApiKeys',
  'POST /api-keys': 'createApiKey',
  'DELETE /api-keys/{keyId}': 'revokeApiKey',
  'GET /minds': 'listMinds',
  'POST /minds': 'createMind',
  'GET /minds/search': 'searchMinds',
  'GET /minds/{mindId}': 'getMind',
  'PUT /minds/{mindId}': 'updateMind',
  'DELETE /minds/{mindId}': 'deleteMind',
  'PUT /minds/{mindId}/tags': 'setMindTags',
  'GET /minds/{mindId}/export': 'exportMind',
  'POST /minds/import': 'importMind',
  'GET /minds/{mindId}/profile': 'getMindProfile',
  'GET /minds/{mindId}/signed-url': 'getSignedUploadUrl',
  'GET /minds/{mindId}/semantic-index': 'getSemanticIndex',
  'PUT /uploads/{token}': 'uploadToSignedUrl',
  'GET /minds/{mindId}/snapshots': 'listSnapshots',
  'POST /minds/{mindId}/snapshots': 'createSnapshot',
  'GET /minds/{mindId}/snapshots/{snapshotId}': 'getSnapshot',
  'DELETE /minds/{mindId}/snapshots/{snapshotId}': 'deleteSnapshot',
  'GET /minds/{mindId}/snapshots/{snapshotId}/status': 'getSnapshotStatus',
  'GET /minds/{mindId}/snapshots/{snapshotId}/speakers': 'listSnapshotSpeakers',
  'PUT /minds/{mindId}/snapshots/{snapshotId}/speaker': 'setSnapshotSpeaker',
  'POST /minds/{mindId}/snapshots/{snapshotId}/link': 'linkSnapshot',
  'POST /minds/{mindId}/snapshots/{snapshotId}/unlink': 'unlinkSnapshot',
  'GET /minds/{mindId}/snapshots/{snapshotId}/psychometrics': 'getPsychometrics',
  'GET /minds/{mindId}/snapshots/{snapshotId}/topic-analysis': 'getTopicAnalysis',
  'GET /minds/{mindId}/snapshots/{snapshotId}/findings': 'getFindings',
  'POST /simulate': 'simulate',
  'GET /simulations': 'listSimulations',
  'GET /simulations/{simulationId}': 'getSimulation',
  'DELETE /simulations/{simulationId}': 'deleteSimulation',
  'POST /simulations/{simulationId}/share': 'shareSimulation',
  'DELETE /simulations/{simulationId}/share/{userId}': 'unshareSimulation',
  'GET /tags': 'listTags',
  'PUT /tags/{tagId}': 'renameTag',
  'DELETE /tags/{tagId}': 'deleteTag',
  'GET /models': 'listModels',
  'GET /users': 'listUsers',
  'GET /usage': 'getUsage',
  'GET /webhooks': 'listWebhooks',
  'POST /webhooks': 'createWebhook',
  'GET /webhooks/{webhookId}': 'getWebhook',
  'PATCH /webhooks/{webhookId}': 'updateWebhook',
  'DELETE /webhooks/{webhookId}': 'deleteWebhook',
  'GET /webhooks/{webhookId}/deliveries': 'listWebhookDeliveries',
  'POST /webhooks/{webhookId}/test': 'testWebhook',
};

/** Fastify's route URL (`/minds/:mindId`) → the document's (`/minds/{mindId}`). */
export function documentPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

/** The operationId for a method and a document path, if one is assigned. */
export function operationIdFor(method: string, path: string): string | undefined {
  return OPERATION_IDS[`${method.toUpperCase()} ${documentPath(path)}`];
}
