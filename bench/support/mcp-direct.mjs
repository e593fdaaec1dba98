// src/clients/mcp/server.ts run directly under tsx, without the CLI around it: what the MCP code itself costs (bench/mcp.ts).
import { register } from 'tsx/esm/api';

register();
const { runMcpServer } = await import('../../src/clients/mcp/server.ts');
await runMcpServer();
