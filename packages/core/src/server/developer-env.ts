// The environment the developer's tabs inherit: the developer's own client's, never whoever started the host.
import { readOptional } from '../proc/proc-fs.js';
import type { EnvLike } from '../pty/environment.js';
import { parseEnviron, sessionInheritable } from '../common/inherited-env.js';

/** ptydeck's variables that describe this host, which programs in its sessions need to find it. */
const HOST_VARS = ['PTYDECK_STATE_DIR', 'PTYDECK_CONFIG_DIR'];

/**
 * The base environment of the sessions a host starts. Whoever starts the host
 * chooses the host's own environment, and that may be an agent's
 * `ptydeck mcp`: its PROMPT_COMMAND, BASH_ENV or PAGER must not reach the
 * developer's next tab. So the base is the environment of the developer's
 * own client: the last process that the /ticket judge found outside every
 * session (`ptydeck`, `ptydeck url`, `ls`, `attach`, the desktop app's main
 * process), read from /proc/<pid>/environ, as a terminal emulator started
 * from that shell would pass it on. Until one asks (and where /proc is not
 * there) it is the host's own. Either way ptydeck's own variables (but the
 * ones naming this host) and the injection vectors of inherited-env.ts are
 * never inherited from a client.
 */
export class DeveloperEnv {
  private env: Record<string, string>;
  private readonly hostVars: Record<string, string> = {};

  constructor(own: EnvLike = process.env) {
    for (const name of HOST_VARS) if (own[name]) this.hostVars[name] = own[name];
    this.env = this.compose(own);
  }

  /** The environment sessions start from now. */
  current(): Record<string, string> {
    return this.env;
  }

  /**
   * Takes the environment of `pid`, a process judged the developer's own,
   * as the kernel keeps it (what it was started with). Kept as it was if the
   * process is gone or unreadable.
   */
  learnFrom(pid: number): void {
    const text = readOptional(`/proc/${pid}/environ`, { encoding: 'utf8' });
    if (text) this.env = this.compose(parseEnviron(text));
  }

  private compose(client: EnvLike): Record<string, string> {
    return { ...sessionInheritable(client), ...this.hostVars };
  }
}
