// The working directory a bridged agent runs in, so its shells start where it works.
import { statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { isAbsolute } from 'node:path';

/**
 * Header carrying the working directory of the agent that started `ptydeck
 * mcp` (URI-encoded: a path may hold any byte, a header only Latin-1), so its
 * shells start where the agent works rather than where the host happened to
 * start. It grants nothing: the agent may name any directory in terminal_create.
 * Node built-ins only, so the bridge can name it without loading the server.
 */
export const CLIENT_CWD_HEADER = 'x-ptydeck-client-cwd';

/** The bridged agent's working directory, when the request names an existing one; else undefined (the host's own is used). */
export function clientCwdOf(req: IncomingMessage): string | undefined {
  const encoded = req.headers[CLIENT_CWD_HEADER];
  if (typeof encoded !== 'string') return undefined;
  try {
    const path = decodeURIComponent(encoded);
    return isAbsolute(path) && statSync(path).isDirectory() ? path : undefined;
  } catch {
    return undefined;
  }
}
