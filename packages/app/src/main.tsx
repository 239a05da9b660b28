import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { render } from 'solid-js/web';
import { getBridge, parseBridgeConnection } from './bridge.js';
import { checkSameOriginAccess, sameOriginEndpoint, tokenEndpoint } from './connection/endpoint.js';
import { PanelClient } from './connection/panel-client.js';
import { openBrowserSocket } from './connection/socket.js';
import { openSafeLink } from './terminal/safe-link.js';
import { parseSettings, SETTINGS_STORAGE_KEY } from './terminal/settings.js';
import { TerminalProvider } from './terminal/terminal-context.jsx';
import { App } from './ui/App.jsx';

const bridge = getBridge();

function createClient(): PanelClient {
  return new PanelClient({
    // Electron: the preload names the server and the token. Browser: same origin, cookie auth.
    endpoint: async () => {
      if (!bridge) return sameOriginEndpoint(window.location);
      const { url, token } = parseBridgeConnection(await bridge.connection());
      return tokenEndpoint(url, token);
    },
    openSocket: openBrowserSocket,
    // In a browser the cookie may be missing or stale; Electron hands over a fresh token on every attempt.
    ...(bridge ? {} : { checkAccess: () => checkSameOriginAccess((path, init) => fetch(path, init)) }),
  });
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

render(
  () => (
    <TerminalProvider
      createClient={createClient}
      settings={parseSettings(localStorage.getItem(SETTINGS_STORAGE_KEY))}
      shortcutMode={bridge ? 'electron' : 'browser'}
      openLink={(uri) => openSafeLink(uri, bridge, (url, target, features) => window.open(url, target, features))}
    >
      <App />
    </TerminalProvider>
  ),
  root,
);
