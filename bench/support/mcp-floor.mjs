// The smallest MCP server on the official SDK (no tools), over stdio: the floor of bench/mcp.ts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

await new McpServer({ name: 'floor', version: '0.0.0' }).connect(new StdioServerTransport());
