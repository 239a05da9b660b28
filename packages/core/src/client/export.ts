// `ptydeck export`: a session's recording (asciicast v3 or v2) or its output as text, from the running host.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { DisposableStore } from '@ptydeck/contract';
import type { CliIo } from './cli-io.js';
import type { ExportFormat } from '../common/recording-formats.js';
import { PanelSession, readPanelMessage } from './panel-session.js';
import { printable } from '../common/printable.js';
import { matchSession, SHORT_ID_LENGTH } from './session-list.js';
import { EXIT_OK } from '../common/exit-codes.js';
import { writeAtomically } from '../common/atomic-write.js';

/**
 * The first link among the directories of `target`'s path (as given, `..`
 * walked as the kernel walks it: after the link before it) that belongs to
 * this user, who is who an agent's shell runs as; null when none does. A
 * system's own links (`/home` to `/var/home`, root's) pass. What the path
 * names last is not looked at: writeAtomically renames over it.
 */
async function ownLinkOnPath(target: string): Promise<{ path: string; to: string; resolved: string } | null> {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const parts = (isAbsolute(target) ? target : `${process.cwd()}/${target}`).split('/').filter((part) => part !== '' && part !== '.');
  let path = '';
  for (const part of parts.slice(0, -1)) {
    path += `/${part}`;
    const stats = await lstat(path).catch(() => null);
    // A path that does not exist fails the write itself.
    if (!stats) return null;
    if (stats.isSymbolicLink() && stats.uid === uid) {
      const to = await realpath(path).catch(() => readlink(path));
      return { path, to, resolved: await realpath(dirname(target)).then((dir) => join(dir, basename(target))).catch(() => target) };
    }
  }
  return null;
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
      // a developer is likely to give (`session.cast`) put the agent's own output in `~/.bashrc`. A rename replaces it.
      // A link among its directories is not replaced but followed, so it is refused before anything is written.
      const link = await ownLinkOnPath(command.output);
      if (link) {
        throw new Error(
          `${link.path} is a link to ${link.to}, and a link on the export's path may be one an agent's shell planted to send it elsewhere (${link.to} could be ~/.bashrc.d); nothing was written. Give the path it leads to if that is where you meant the export to go: ${link.resolved}`,
        );
      }
      await writeAtomically(command.output, data);
      io.stderr.write(`ptydeck: wrote session ${match.info.id.slice(0, SHORT_ID_LENGTH)} to ${command.output} (${command.format})\n`);
    }
    return EXIT_OK;
  } finally {
    panel.close();
  }
}

