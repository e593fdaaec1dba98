import { Type } from 'typebox';
import type { Routes } from '../../deps.ts';
import { errorResponses, Uuid } from '../../platform/http/schemas.ts';
import { MindParams } from '../minds/index.ts';
import { MindProfile } from './schemas.ts';
import { mindProfile } from './service.ts';

export const profileRoutes: Routes = async (app, { deps }) => {
  app.get('/minds/:mindId/profile', {
    schema: {
      tags: ['Analysis'],
      summary: 'Profile of a mind',
      description: 'The mind as of its linked completed snapshots: traits weighted by words and recency of mindsetDate, communication style, top topics and findings, and each trait’s trajectory across snapshots (oldest first).',
      params: MindParams,
      response: { 200: Type.Object({ mindId: Uuid, name: Type.String(), profile: MindProfile }), ...errorResponses(404) },
    },
  }, async (req) => mindProfile(deps.db, req.caller, req.params.mindId));
};
