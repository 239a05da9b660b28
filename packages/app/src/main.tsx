// The renderer's entry: finds the server (Electron's bridge or the page's one-time ticket) and mounts the panel.
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { render } from 'solid-js/web';
import { reportError } from '@ptydeck/contract';
import { createNotifier } from './attention/desk-notifier.js';
import { getBridge, parseBridgeConnection } from './bridge.js';
import { browserCredential, takeTicket, type CredentialPage } from './connection/browser-credential.js';
import { checkSameOriginAccess, sameOriginEndpoint, tokenEndpoint } from './connection/endpoint.js';
import { PanelClient } from './connection/panel-client.js';
import { openBrowserSocket } from './connection/socket.js';
import { openSafeLink } from './terminal/safe-link.js';
import { parseSettings, SETTINGS_STORAGE_KEY } from './terminal/settings.js';
import { textClipboard } from './terminal/text-clipboard.js';
import { ChatProvider } from './chat/chat-context.jsx';
import { TerminalProvider } from './terminal/terminal-context.jsx';
import { TimelineProvider } from './timeline/timeline-context.jsx';
import { ReplayProvider } from './replay/replay-context.jsx';
import { App } from './ui/App.jsx';
import { NoCredential } from './ui/NoCredential.jsx';

const bridge = getBridge();
const page: CredentialPage = {
  location: window.location,
  history: window.history,
  storage: window.sessionStorage,
  fetch: (input, init) => window.fetch(input, init),
};
// First thing, before anything reads the location: the one-time ticket leaves the address bar.
const ticket = bridge ? null : takeTicket(page);

function createClient(browserToken: string | null): () => PanelClient {
  return () =>
    new PanelClient({
      // Electron: the preload names the server and the panel token. Browser: same origin, the traded token.
      endpoint: async () => {
        if (!bridge) return sameOriginEndpoint(window.location, browserToken ?? '');
        const { url, token } = parseBridgeConnection(await bridge.connection());
        return tokenEndpoint(url, token);
      },
      openSocket: openBrowserSocket,
      // In a browser the token may be stale (a restarted server); Electron hands over a fresh one on every attempt.
      ...(bridge ? {} : { checkAccess: () => checkSameOriginAccess((path, init) => fetch(path, init), browserToken ?? '') }),
    });
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
const mount: HTMLElement = root;

async function start(): Promise<void> {
  let browserToken: string | null = null;
  if (!bridge) {
    const credential = await browserCredential(page, ticket);
    if (credential.kind === 'missing') {
      render(() => <NoCredential reason={credential.reason} />, mount);
      return;
    }
    browserToken = credential.token;
  }
  render(
    () => (
      <TerminalProvider
        createClient={createClient(browserToken)}
        settings={parseSettings(localStorage.getItem(SETTINGS_STORAGE_KEY))}
        shortcutMode={bridge ? 'electron' : 'browser'}
        notifier={createNotifier(bridge, window)}
        clipboard={textClipboard(bridge, navigator.clipboard)}
        openLink={(uri) => openSafeLink(uri, bridge, (url, target, features) => window.open(url, target, features))}
      >
        <ChatProvider>
          <TimelineProvider>
            <ReplayProvider>
              <App />
            </ReplayProvider>
          </TimelineProvider>
        </ChatProvider>
      </TerminalProvider>
    ),
    mount,
  );
}

start().catch((error: unknown) => {
  reportError(error, 'starting the panel failed');
});
