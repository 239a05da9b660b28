// The HTTP side alone (server/http-server.ts), for tests of its routes, credentials and panel socket without the agent tool or chats.
import { ProcessWatch, SessionFacts, type ProcessWatchOptions } from '../facts/index.js';
import { ScreenService } from '../screen/index.js';
import { startHttpServer, type HttpServer, type HttpServerOptions } from '../server/http-server.js';

export interface TestHttpServerOptions extends Omit<HttpServerOptions, 'screens' | 'facts' | 'processes'> {
  /** The record the test's agent tool tells, when it has one; without it the kit makes one. */
  facts?: SessionFacts;
  /** Tests shorten the process watch's interval. */
  processWatch?: ProcessWatchOptions;
}

/** The server, with the process watch it was handed so a test can count its looks. */
export interface TestHttpServer extends HttpServer {
  readonly processes: ProcessWatch;
}

/**
 * Starts the HTTP server with the screens, facts and process watch the host
 * would hand it (host/local-server.ts), and disposes them after it on close.
 */
export async function startTestHttpServer(options: TestHttpServerOptions): Promise<TestHttpServer> {
  const { facts: given, processWatch, ...rest } = options;
  const screens = new ScreenService(options.service);
  const facts = given ?? new SessionFacts(options.service);
  const processes = new ProcessWatch(options.service, facts, processWatch);
  const dispose = () => {
    processes.dispose();
    if (!given) facts.dispose();
    screens.dispose();
  };
  let server: HttpServer;
  try {
    server = await startHttpServer({ ...rest, screens, facts, processes });
  } catch (error) {
    dispose();
    throw error;
  }
  return {
    ...server,
    processes,
    close: async () => {
      await server.close();
      dispose();
    },
  };
}
