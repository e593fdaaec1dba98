import type { Module } from '../../deps.ts';
import { mcpRoutes } from './http.ts';

/** The MCP tools for remote assistants: Streamable HTTP at /mcp, outside the API base path, with the API's keys. */
export const mcpModule: Module = {
  name: 'mcp',
  publicRoutes: mcpRoutes,
};
