/** A usage or input error: reported on stderr with the usage line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The command path the error belongs to, e.g. "ptydeck serve". */
    readonly command: string,
    readonly usage: string,
  ) {
    super(message);
  }
}


export const ROOT_USAGE = 'ptydeck [<command>] [options]';
export const SERVE_USAGE = 'ptydeck serve [--port N] [--host H] [--idle-exit S]';
export const HOST_USAGE = 'ptydeck host [--port N] [--host H] [--idle-exit S]';
export const MCP_USAGE = 'ptydeck mcp [--sandbox PROFILE] [--embedded] [--remote NAME]';
export const SANDBOX_USAGE = 'ptydeck sandbox check [--json]';
export const URL_USAGE = 'ptydeck url';
export const STOP_USAGE = 'ptydeck stop [--force]';
export const STATUS_USAGE = 'ptydeck status [--json]';
export const LS_USAGE = 'ptydeck ls [--json] [--remote NAME]';
export const ATTACH_USAGE = 'ptydeck attach [--write] [--remote NAME] <id or unique prefix>';
export const REMOTE_USAGE = 'ptydeck remote add NAME DESTINATION | remote ls [--json] | remote rm NAME';
export const EXPORT_USAGE = 'ptydeck export <id or unique prefix> [--format asciicast-v3|asciicast-v2|text] [-o file]';

export const ROOT_HELP = `Usage: ${ROOT_USAGE}

A terminal panel in which AI coding agents' shells run live, beside your own.

One ptydeck host per user (per state directory) owns every shell; everything
else is its client. With no command, ptydeck starts the host if none runs and
prints a one-time link to its panel.

Commands:
  serve     Run the host in this terminal, printing its panel link (Ctrl-C ends it)
  host      Run the host in the foreground for a service manager, logging only
  mcp       A stdio MCP server for agents; joins the host, starting it if needed
  url       Print a fresh one-time link to the host's panel
  stop      End the host and every session in it
  status    Show the running host: pid, version, state directory, uptime, sessions
  ls        List every session of the host: yours and your agents'
  attach    Watch a session in this terminal, or type into it with --write
  export    Write a session's recording (asciicast, for asciinema) or its output as text
  sandbox   \`sandbox check\`: whether agents' shells can be sandboxed here, and why not
  remote    \`remote add|ls|rm\`: hosts on other machines, reached with ssh (--remote NAME)

Options:
  -h, --help      Show help (also: ptydeck <command> --help)
  -v, --version   Print the version and the host protocol version

Environment:
  PTYDECK_STATE_DIR   Where server.json (url, agent token, pid), host.lock and
                      host.log are kept (default: $XDG_STATE_HOME/ptydeck,
                      else ~/.local/state/ptydeck)
  PTYDECK_IDLE_EXIT   Seconds an unused host waits before it exits (0: never;
                      default 600 for a host, never for \`ptydeck serve\`)
  PTYDECK_CONFIG_DIR  Where config.json (persistence, sandbox), agents.json
                      (the ACP agents to chat with) and remotes.json are read
                      (default: $XDG_CONFIG_HOME/ptydeck, else ~/.config/ptydeck)
  PTYDECK_PERSIST     0 (or false, off, no): the host keeps no session on disk;
                      otherwise a host that is killed, crashes or is upgraded
                      leaves its sessions to the next one, marked lost. To keep
                      it off whoever starts the next host (an agent's
                      \`ptydeck mcp\` too), put { "persist": false } in
                      config.json in the config directory
  PTYDECK_NO_CODE_CACHE  1: \`ls\`, \`url\`, \`status\` and \`attach\` neither read
                      nor write the V8 code cache beside ptydeck's bundle
`;

const HOST_OPTIONS = `Options:
  --port N        TCP port (default 0: any free port)
  --host H        Interface to bind (default 127.0.0.1; anything else exposes ptydeck
                  beyond this machine's loopback: only when you mean it)
  --idle-exit S   Exit after S seconds with no running session, chat, panel or
                  agent connected (0: never; default $PTYDECK_IDLE_EXIT, else %DEFAULT%)
  -h, --help      Show this help`;

export const SERVE_HELP = `Usage: ${SERVE_USAGE}

Runs the ptydeck host in this terminal: the panel and MCP over Streamable
HTTP on 127.0.0.1, and prints a one-time link that opens the panel in a
browser. Agents use Authorization: Bearer <token> on /mcp; that agent token
is in server.json (mode 0600) in the state directory, never printed, and does
not open the panel. The panel's own token stays in this process's memory.
Refuses to start while a host already runs for the state directory.

${HOST_OPTIONS.replace('%DEFAULT%', 'never')}

Stops on SIGINT or SIGTERM, ending every session and removing server.json.
`;

export const HOST_HELP = `Usage: ${HOST_USAGE}

Runs the ptydeck host in the foreground for a service manager (a systemd user
unit, launchd): what \`ptydeck serve\` runs, printing no link, only a log on
stderr. Clients (\`ptydeck\`, \`ptydeck mcp\`) start it detached by themselves
when none runs, logging to host.log in the state directory. Exactly one host
runs per state directory; a second one exits at once, naming the first.

${HOST_OPTIONS.replace('%DEFAULT%', '600')}

Stops on SIGINT, SIGTERM or \`ptydeck stop\`, ending every session.
`;

export const STOP_HELP = `Usage: ${STOP_USAGE}

Ends the ptydeck host and every session in it, and says how many it ended
and how many agents were connected; their \`ptydeck mcp\` start no new host
until you run \`ptydeck\`. While agents' sessions are running it lists them and ends nothing, unless
--force is given. Only a process outside every ptydeck session may stop the
host (as with \`ptydeck url\`): run it in a terminal of your own.

Options:
  --force      End the host even while agents' sessions are running
  -h, --help   Show this help
`;

export const MCP_HELP = `Usage: ${MCP_USAGE}

A stdio MCP server exposing the terminal_* tools. It forwards to the ptydeck
host (found through server.json), starting the host if none runs, so the
agent's sessions appear in its panel and outlive this process. If the host
dies, the agent's next call gets an error saying its sessions are gone, and
the call after it goes to a new host. Only protocol frames go to stdout;
logs go to stderr.

Options:
  --sandbox PROFILE  How the OS fences this agent's shells: off, workspace
               (writes only in the shell's directory, a private /tmp and
               package caches; keys, credentials and ptydeck's state hidden;
               network on) or workspace-offline (the same, no network).
               Overrides config.json's choice for this agent; one that cannot
               start here fails the shell, never runs it unsandboxed. Without
               it: config.json, else workspace where bubblewrap works
  --embedded   Run an embedded core in this process instead: its sessions end
               with it and no panel shows them
  --remote NAME  The agent's shells run in the ptydeck host on remote NAME
               (\`ptydeck remote add\`), reached with ssh; if the link drops,
               calls get an error result at once while it reconnects, and the
               remote's sessions keep running
  -h, --help   Show this help

ptydeck passes this command to the ACP agents it hosts in chats, with
PTYDECK_CHAT_BINDING set so their sessions land under the chat; with it set,
it only joins that ptydeck and never starts a host or an embedded core.

Configure an agent, e.g. Claude Code:
  claude mcp add ptydeck -- ptydeck mcp
`;

export const URL_HELP = `Usage: ${URL_USAGE}

Prints a new one-time link that opens the running ptydeck's panel in a
browser (found through server.json). Each link works once, for 5 minutes.

It presents no secret: ptydeck looks up the asking process (Linux /proc) and
refuses one that runs inside any ptydeck session, so run it in a terminal of
your own. Where the process cannot be looked up (macOS), ptydeck prints the
link in the terminal running \`ptydeck serve\` (or brings its window forward)
and this command says where to look.

Options:
  -h, --help   Show this help
`;

export const STATUS_HELP = `Usage: ${STATUS_USAGE}

Shows the running ptydeck host of this state directory (none is started), as
it reports itself over its panel connection: its pid (to end a stuck host
with \`kill\`), version and host protocol, state directory, url, uptime, its
sessions by state and the agents connected now. With no host running it says
so and exits 1. Like \`ptydeck ls\`, refused inside a ptydeck session.

Options:
  --json       One object: pid, version, protocol, state_dir, url,
               started_at, uptime_ms, sessions (by state), agents (names)
  -h, --help   Show this help
`;

export const EXPORT_HELP = `Usage: ${EXPORT_USAGE}

Writes a session's recording, from the output the host still keeps (lost
sessions too): asciicast v3 by default (play it with asciinema or its web
player: output timed as it arrived, a marker at each command with its
command line, resizes, the exit status last), asciicast v2 for older players,
or the output as plain text. Input is never recorded: what you typed at a
prompt with echo off (a password) is in no recording. Without -o it goes to
stdout. Refused inside a ptydeck session, as \`ptydeck ls\` is.

Options:
  --format F    asciicast-v3 (default), asciicast-v2 or text
  -o, --output  Write to this file (a new one, 0600, renamed over the name) instead of stdout
  -h, --help    Show this help
`;

export const LS_HELP = `Usage: ${LS_USAGE}

Lists the sessions of the running ptydeck host (found through server.json;
none is started): short id, source (agent or user), owner (the agent's name,
or "you"), title, state (running, idle_at_prompt, waiting_for_input,
exited, lost), the TCP ports its processes listen on (- for none, ? where
the system cannot say), working directory and age. Control characters in
any field are shown as spaces (in --json, as \\u escapes). A lost session was running when
an earlier host stopped (killed, crashed or upgraded): its process is gone,
its output is what that host saved, and it stays listed until removed (its
tab's close in the panel, or its agent's terminal_close).

Like \`ptydeck url\`, it is refused inside a ptydeck session: run it in a
terminal of your own.

Options:
  --json       An array of objects: id, source, owner, title, state, pid, cwd,
               exit_code, signal, command, cols, rows, created_at, prompt,
               last_exit_code, ports (port, address, pid, command; or null),
               sandbox (profile, writable, hidden, readOnly, network,
               unavailable; null for your own sessions). The host's own pid is in \`ptydeck status\`
  --remote NAME  List the sessions of the host on remote NAME, through ssh
  -h, --help   Show this help
`;

export const ATTACH_HELP = `Usage: ${ATTACH_USAGE}

Shows a session in this terminal: its current screen at once, then its output
live. Read-only unless --write: your keys go nowhere but the detach key.

  Ctrl-\\ d    Detach: the session keeps running (Ctrl-\\ twice sends one Ctrl-\\)

With --write, keys (Ctrl-C included) go to the session, and this terminal's
size becomes the session's while you are the latest to type; attaching to a
full-screen program asks it to redraw. A read-only attach never resizes.

This terminal is given what the session draws, not its raw bytes: text,
colours, cursor movement, erasing, scroll regions, the alternate screen,
bracketed paste and the cursor's visibility. Titles, OSC 52 (the clipboard),
links, report requests (cursor position, device attributes), mouse and focus
reporting are dropped, so nothing the session writes reaches your clipboard
or makes this terminal type an answer into the session.

When the session ends, attach says how and exits with its exit code (128+N
for signal N); 1 if ptydeck goes away (it says whether the host is gone or
only the connection). A lost session (the host restarted
while it ran: see \`ptydeck ls\`) has no process: attach draws what was
saved of its screen, says it is lost and exits 3; --write to it is refused.
Refused inside a ptydeck session.

Options:
  --write      Send keys and this terminal's size to the session
  --remote NAME  A session of the host on remote NAME, through ssh; a dropped
               link is reconnected, redrawing the screen
  -h, --help   Show this help
`;

/** Renders a usage error the way every command reports one; `red` colours the message where colour is on. */
export function formatUsageError(error: UsageError, red: (text: string) => string = (t) => t): string {
  return `${red(`${error.command}: ${error.message}`)}\nUsage: ${error.usage}\nRun '${error.command} --help' for more.\n`;
}

export const SANDBOX_HELP = `Usage: ${SANDBOX_USAGE}

Says whether each sandbox profile for agents' shells can start on this
machine (bubblewrap with unprivileged user namespaces on Linux) and, where
one cannot, why and how to fix it. Exits 0 when every profile works, 1 when
one does not.

Options:
  --json       One JSON object: each profile with ok, and reason and fix when not
  -h, --help   Show this help
`;

export const REMOTE_HELP = `Usage: ${REMOTE_USAGE}

Names hosts on other machines, reached through OpenSSH: ssh does the login,
the encryption and any jump hosts; ptydeck runs its own ptydeck there (which
must be installed there, the same version) and talks to that host.

  add NAME DESTINATION   DESTINATION is anything ssh accepts: user@box, or a
                         Host alias from ~/.ssh/config
  ls [--json]            The remotes, with their destinations
  rm NAME                Forget a remote (its host and sessions keep running)

Kept in remotes.json in ptydeck's config directory. Use a remote with
\`ptydeck mcp --remote NAME\`, \`ptydeck ls --remote NAME\` and
\`ptydeck attach --remote NAME <id>\`. Nothing of this machine's environment,
paths or ssh agent is sent; shells start in the remote home. PTYDECK_SSH
names the ssh program to run (default: ssh).
`;
