// Checks MCP request params before the SDK does, so a bad call gets Invalid params with a readable message.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { formatZodIssues, type IssueList } from '@ptydeck/contract';
import { errorResponse } from '../common/jsonrpc-frame.js';

/**
 * Params checks for the methods ptydeck's MCP server answers. The SDK parses
 * a request's params inside its handler and turns a failure into -32603
 * Internal error carrying the raw zod dump; JSON-RPC says -32602 Invalid
 * params, and a model needs a sentence it can act on. It also ignores a
 * tools/list cursor and returns every tool, where an invalid cursor is -32602.
 */
export function checkParams(request: JSONRPCRequest): JSONRPCErrorResponse | undefined {
  const problem = PROBLEMS[request.method]?.(request);
  return problem === undefined ? undefined : errorResponse(request.id, ErrorCode.InvalidParams, problem);
}

/**
 * Connects `server` to `transport` with checkParams in front of it: a request
 * with bad params is answered on the same transport and never reaches the SDK.
 * Notifications pass untouched (JSON-RPC never answers them).
 */
export async function connectChecked(server: McpServer, transport: Transport): Promise<void> {
  const connecting = server.connect(transport);
  // Protocol.connect installs its onmessage synchronously, before it awaits the transport's start:
  // wrapping it here, before any message can arrive, puts the checks in front of every request.
  const handle = transport.onmessage;
  if (!handle) throw new Error('the MCP server did not install a message handler on connect');
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? checkParams(message) : undefined;
    if (refusal === undefined) return handle(message, extra);
    transport.send(refusal).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
  };
  await connecting;
}

type ProblemFinder = (request: JSONRPCRequest) => string | undefined;

const PROBLEMS: Record<string, ProblemFinder> = {
  initialize: (request) => firstIssue(InitializeRequestSchema, request),
  ping: (request) => firstIssue(PingRequestSchema, request),
  'tools/list': (request) =>
    request.params !== undefined && 'cursor' in request.params
      ? 'tools/list takes no cursor: ptydeck returns every tool in one page (no nextCursor), so any cursor is invalid; omit params.cursor'
      : firstIssue(ListToolsRequestSchema, request),
  'tools/call': (request) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (typeof params?.name !== 'string') return "tools/call needs params.name, the tool's name (a string); see tools/list";
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return `tools/call needs params.arguments to be an object of the tool's named arguments, not ${Array.isArray(args) ? 'an array' : args === null ? 'null' : `a ${typeof args}`}`;
    }
    // Past the two checks above only _meta and task can fail the schema (it takes any other member): a call
    // without them, as most are, skips a zod pass the SDK makes again anyway (bench figure 4).
    if (params._meta === undefined && params.task === undefined) return undefined;
    return firstIssue(CallToolRequestSchema, request);
  },
};

interface Schema {
  safeParse(value: unknown): { success: true } | { success: false; error: IssueList };
}

/** The first schema issue as "<method>: params.x.y: what was wrong", short enough to read. */
function firstIssue(schema: Schema, request: JSONRPCRequest): string | undefined {
  const parsed = schema.safeParse(request);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  if (!issue) return `${request.method}: invalid params`;
  // The request is checked whole, so an issue at its root concerns the params.
  return `${request.method}: ${issue.path.length > 0 ? '' : 'params: '}${formatZodIssues(parsed.error, 1)}`.slice(0, 300);
}
