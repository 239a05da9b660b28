// `ptydeck export`: a session's recording (asciicast v3 or v2) or its output as text, from the running host.
import { constants, existsSync } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { DisposableStore, matchSession } from '@ptydeck/contract';
import type { CliIo } from './cli-io.js';
import type { ExportFormat } from '../common/recording-formats.js';
import { PanelSession, readPanelMessage } from './panel-session.js';
import { printable } from '../common/printable.js';
import { SHORT_ID_LENGTH } from './session-list.js';
import { EXIT_OK } from '../common/exit-codes.js';
import { writeAtomically } from '../common/atomic-write.js';

/** A link of this user's found among the directories of an export's path: where it leads, and the path it makes of the export. */
interface OwnLink {
  path: string;
  to: string;
  resolved: string;
}

/** Links followed at most on the way, as the kernel's own limit (ELOOP). */
const MAX_LINKS_FOLLOWED = 40;

/**
 * Walks `dir` as the kernel walks a path (`..` after the link before it), by lstat: the first link that belongs
 * to this user, who is who an agent's shell runs as, or else the real path `dir` names. A system's own links
 * (`/home` to `/var/home`, root's) are followed, by their contents alone, never by a look at the path again.
 * Where a part does not exist, what is left is joined as it is: the open fails then.
 */
async function walkDirectory(dir: string, uid: number | undefined): Promise<{ link: OwnLink } | { real: string }> {
  // No uid (Windows): no link is the developer's user's rather than the system's, and no path is walked.
  if (uid === undefined) return { real: dir };
  const pending = dir.split('/').filter((part) => part !== '' && part !== '.');
  let current = '/';
  let followed = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const stats = await lstat(next).catch(() => null);
    if (!stats) return { real: join(next, ...pending) };
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (stats.uid === uid) {
      const to = await realpath(next).catch(() => readlink(next));
      return { link: { path: next, to, resolved: join(await realpath(dir).catch(() => dir)) } };
    }
    if (++followed > MAX_LINKS_FOLLOWED) return { real: join(next, ...pending) };
    const to = await readlink(next);
    pending.unshift(...to.split('/').filter((each) => each !== '' && each !== '.'));
    if (isAbsolute(to)) current = '/';
  }
  return { real: current };
}

/**
 * Writes the export over `target` (writeAtomically: a new file renamed over the name, so a link at the name is
 * replaced, not written through), refusing a link of this user's among its directories: followed, it sends the
 * export wherever the link's maker chose. The directory is opened first and written through its descriptor
 * (`/proc/self/fd/N/<name>`), and the kernel's path of that descriptor must be the one the walk found: a shell that
 * swaps a directory of the path for a link and back (renameat2's exchange, as fast as the kernel does it) made
 * `exports/session.txt` land in `~/.bashrc.d` in a few tries between a look at the path and the write through it
 * (timeline-host.test.ts). Where /proc is not there, the look and the write are by path, with that race.
 */
async function writeExport(target: string, data: string): Promise<void> {
  const absolute = isAbsolute(target) ? target : join(process.cwd(), target);
  const dir = dirname(absolute);
  const uid = process.getuid?.();
  const refuse = (link: OwnLink) =>
    new Error(
      `${link.path} is a link to ${link.to}, and a link on the export's path may be one an agent's shell planted to send it elsewhere (${link.to} could be ~/.bashrc.d); nothing was written. Give the path it leads to if that is where you meant the export to go: ${join(link.resolved, basename(absolute))}`,
    );
  if (!existsSync('/proc/self/fd')) {
    // No descriptor's path to ask the kernel for (macOS; Windows opens no directory): the look, then the write by path.
    const walked = await walkDirectory(dir, uid);
    if ('link' in walked) throw refuse(walked.link);
    return writeAtomically(absolute, data);
  }
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY).catch(async (error: unknown) => {
    // A link of this user's that leads nowhere (yet) is refused as such, not as a missing directory.
    const walked = await walkDirectory(dir, uid);
    throw 'link' in walked ? refuse(walked.link) : error;
  });
  try {
    const byDescriptor = `/proc/self/fd/${handle.fd}`;
    const opened = await readlink(byDescriptor).catch(() => null);
    const walked = await walkDirectory(dir, uid);
    if ('link' in walked) throw refuse(walked.link);
    if (opened !== walked.real) throw new Error(`${dir} changed while the export was written (it led to ${opened}, and now to ${walked.real}): a link may have been swapped into its path; nothing was written`);
    await writeAtomically(join(byDescriptor, basename(absolute)), data);
  } finally {
    await handle.close();
  }
}

/** What the developer can act on in a failed write: the system's words name the temporary file or /proc/self/fd/N, which they never gave. */
const WRITE_FAILURES: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its directory is not a directory',
  EISDIR: 'it is a directory; give a file name in it',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
};

function whyNotWritten(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  // Not a system error (a link refused, a directory swapped): its own message says it, and says nothing was written.
  if (code === undefined) return message;
  // Another system error: its words without the call and the path (`, rename '/proc/self/fd/20/.x.cast.1a2b' -> ...`).
  return `${WRITE_FAILURES[code] ?? message.replace(/, \w+ '.*$/s, '')}; nothing was written`;
}

export async function runExport(command: { target: string; format: ExportFormat; output: string | null }, io: CliIo): Promise<number> {
  const panel = await PanelSession.connect('ptydeck export', { read: readPanelMessage });
  try {
    const match = matchSession(panel.snapshot.sessions, command.target);
    if (match.kind === 'none') throw new Error(`no session matches '${command.target}' (see \`ptydeck ls\`)`);
    if (match.kind === 'ambiguous') {
      const candidates = match.candidates.map((info) => `  ${info.id}  ${printable(info.title)}`).join('\n');
      throw new Error(`'${command.target}' matches ${match.candidates.length} sessions; type more of the id:\n${candidates}`);
    }
    const { channel } = panel;
    const data = await new Promise<string>((resolve, reject) => {
      const listening = new DisposableStore();
      const settle = (answer: () => void) => {
        listening.dispose();
        answer();
      };
      let requestId: string | null = null;
      listening.add(panel.onClosed((why) => settle(() => reject(new Error(why)))));
      listening.add(channel.onTimeline((message) => {
        if (message.type === 'timeline.exported' && message.requestId === requestId) settle(() => resolve(message.data));
      }));
      listening.add(channel.onError((error) => {
        if (error.requestId === requestId) settle(() => reject(new Error(error.message)));
      }));
      requestId = channel.exportRecording(match.info.id, command.format);
      if (requestId === null) settle(() => reject(new Error(`the connection to ${panel.url} closed before the export was asked`)));
    });
    if (command.output === null) io.stdout.write(data);
    else {
      // The path is often in an agent's workspace, which its shell writes: writing through a link it planted at the name
      // a developer is likely to give (`session.cast`) put the agent's own output in `~/.bashrc`. See writeExport.
      await writeExport(command.output, data).catch((error: unknown) => {
        throw new Error(`cannot write the export to ${command.output}: ${whyNotWritten(error)}`);
      });
      io.stderr.write(`ptydeck: wrote session ${match.info.id.slice(0, SHORT_ID_LENGTH)} to ${command.output} (${command.format})\n`);
    }
    return EXIT_OK;
  } finally {
    panel.close();
  }
}

