// A local host whose panels reach one remote, `box`, over a real sshd of the test's own (ssh-server.ts),
// where the checkout's ptydeck is installed: what the remote tests start before each file.
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { remoteHostsOpener } from '../remote/remote-hosts.js';
import { addRemote } from '../remote/remotes-config.js';
import { buildCore } from './host-sandbox.js';
import { fileTempDir } from './isolated-env.js';
import { startSshServer, type SshServer } from './ssh-server.js';

/** `shell`: the remote test user's login shell (bash, for a remote that records its tabs' commands). */
export async function startRemoteHost(options: { shell?: string } = {}): Promise<{ server: SshServer; local: LocalServer }> {
  buildCore();
  const server = await startSshServer(options.shell ? { shell: options.shell } : {});
  server.install();
  const configDir = fileTempDir('ptydeck-remote-config-');
  addRemote(configDir, { name: 'box', destination: server.alias });
  const stateDir = fileTempDir('ptydeck-remote-state-');
  const local = await startLocalServer({
    stateDir,
    configDir,
    writeDiscovery: false,
    appDir: '/nonexistent',
    sandbox: false,
    remotes: remoteHostsOpener({ configDir, stateDir, env: { ...process.env, PTYDECK_SSH: server.ssh } }),
  });
  return { server, local };
}
