// The working directory a bridged agent runs in, so its shells start where it works.
import { statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { isAbsolute } from 'node:path';
import { CLIENT_CWD_HEADER } from '../common/bridge-header.js';

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
