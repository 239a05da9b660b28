// The developer's own bash tabs with ptydeck's marks, as VS Code injects its shell integration: their commands become records.
import { basename } from 'node:path';
import { BASH_INTEGRATION, keepShellIntegration, type ShellIntegrationFiles } from '../terminal-tool/index.js';

/**
 * bash's --init-file for the developer's tab: the agent's rcfile (which reads
 * the startup files a login shell reads, then installs the marks so they wrap
 * the prompt and PROMPT_COMMAND those files set), told it is the developer's
 * so it leaves their history file, HISTCONTROL and readline settings alone.
 * The marks' hooks are this shell's own: a PROMPT_COMMAND or PS0 the user's
 * files exported would hand a nested bash hooks it has not got, so they are
 * no longer exported (the values stay in this shell).
 */
export const BASH_DEVELOPER_INIT = `__ptydeck_developer=1
${BASH_INTEGRATION}
unset __ptydeck_developer
export -n PROMPT_COMMAND PS0 2>/dev/null
`;

/**
 * The arguments of a developer's new tab. Their login shell as it is, unless
 * it is bash: then bash with the init file above (`--init-file` cannot be
 * given to a login shell, so the file reads the login files itself). No
 * variable is set for it: the file is named on the command line and removes
 * its own marker, so nothing of the injection reaches the shell's children
 * beyond the unexported hooks themselves.
 */
export class DeveloperShell {
  private files: ShellIntegrationFiles | null = null;

  /**
   * `shell`: the program the tab runs, as the PTY service resolved it from
   * the session's own environment; undefined: a plain login shell.
   */
  argsFor(shell: string): string[] | undefined {
    if (basename(shell) !== 'bash') return undefined;
    this.files = keepShellIntegration(this.files, BASH_DEVELOPER_INIT);
    return ['--init-file', this.files.bashRcfile, '-i'];
  }

  dispose(): void {
    this.files?.dispose();
    this.files = null;
  }
}
