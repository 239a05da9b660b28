import { describe, expect, it } from 'vitest';
import { CommandTracker } from './command-tracker.js';

/** The run state machine on its own: the transitions real bash drives, byte positions made up. */

function atPrompt(): CommandTracker {
  const tracker = new CommandTracker();
  tracker.commandFinished(0, 5, null); // the bare done mark before the first prompt
  tracker.promptStarted(10);
  tracker.promptEnded(30);
  return tracker;
}

describe('CommandTracker', () => {
  it('starts, reaches the prompt, and marks the prompt as chrome', () => {
    const tracker = new CommandTracker();
    expect(tracker.phase).toBe('starting');
    tracker.promptStarted(10);
    expect(tracker.phase).toBe('prompting');
    tracker.promptEnded(30);
    expect(tracker.atPrompt).toBe(true);
    expect(tracker.integrationSeen).toBe(true);
    expect(tracker.chromeWithin(0, 100)).toEqual([{ start: 10, end: 30 }]);
  });

  it('follows an agent command: the echo from where it was typed is chrome, output before it is not', () => {
    const tracker = atPrompt();
    // Background output arrives at 30..45, then the agent types at 45.
    tracker.commandTyped(45);
    expect(tracker.phase).toBe('typed');
    expect(tracker.typedCursor).toBe(45);
    tracker.outputStarted(60, 66);
    expect(tracker.phase).toBe('running');
    expect(tracker.running).toMatchObject({ outputStart: 66, outputEnd: null });
    tracker.commandFinished(80, 88, 3);
    expect(tracker.phase).toBe('finished');
    expect(tracker.lastFinished).toEqual({ outputStart: 66, outputEnd: 80, doneEnd: 88, exitCode: 3 });
    expect(tracker.commandAfter(45)).toBe(tracker.lastFinished);
    expect(tracker.commandsDone).toBe(1);
    expect(tracker.chromeWithin(30, 100)).toEqual([{ start: 45, end: 60 }]);
  });

  it('keeps the echo of a line the developer typed, since only the agent\'s own echo is chrome', () => {
    const tracker = atPrompt();
    tracker.outputStarted(50, 56);
    expect(tracker.chromeWithin(30, 100)).toEqual([]);
    expect(tracker.running?.outputStart).toBe(56);
  });

  it('treats a done mark with no output-start as a typed line that ran nothing', () => {
    const tracker = atPrompt();
    tracker.commandTyped(40);
    tracker.commandFinished(50, 55, null);
    expect(tracker.phase).toBe('finished');
    expect(tracker.typedCursor).toBeNull();
    expect(tracker.commandsDone).toBe(0);
    tracker.promptStarted(55);
    tracker.promptEnded(70);
    expect(tracker.atPrompt).toBe(true);
  });

  it('holds a line sent at the prompt as unread until the shell marks reading it', () => {
    const ran = atPrompt();
    ran.lineEntered(30);
    expect(ran.lineUnread).toBe(true);
    expect(ran.atPrompt).toBe(true);
    ran.outputStarted(40, 46);
    expect(ran.lineUnread).toBe(false);

    // An empty line: only the bare done mark says bash read it.
    const empty = atPrompt();
    empty.lineEntered(30);
    empty.commandFinished(31, 40, null);
    expect(empty.lineUnread).toBe(false);

    const exited = atPrompt();
    exited.lineEntered(30);
    exited.processExited(35);
    expect(exited.lineUnread).toBe(false);

    // Input to a running command is the command's, not a line for the shell.
    const busy = atPrompt();
    busy.commandTyped(30);
    busy.outputStarted(40, 46);
    busy.lineEntered(50);
    expect(busy.lineUnread).toBe(false);
  });

  it('ignores a prompt redrawn around a pasted line, and repeated prompt-end marks', () => {
    const tracker = atPrompt();
    tracker.commandTyped(40);
    tracker.promptStarted(45);
    tracker.promptEnded(52);
    expect(tracker.phase).toBe('typed');
    tracker.outputStarted(90, 96);
    // The echo from the typing point to the output-start mark, redraw included.
    expect(tracker.chromeWithin(31, 100)).toEqual([{ start: 40, end: 90 }]);
  });

  it('counts the first output-start of a multi-command line only', () => {
    const tracker = atPrompt();
    tracker.commandTyped(40);
    tracker.outputStarted(50, 55);
    tracker.outputStarted(70, 75);
    expect(tracker.running?.outputStart).toBe(55);
  });

  it('ends a command without a done mark when a new prompt starts (exec) or the process exits', () => {
    const tracker = atPrompt();
    tracker.commandTyped(40);
    tracker.outputStarted(50, 55);
    tracker.promptStarted(90);
    expect(tracker.lastFinished).toMatchObject({ outputEnd: 90, exitCode: null });
    tracker.promptEnded(95);
    tracker.commandTyped(100);
    tracker.outputStarted(110, 115);
    tracker.processExited(130);
    expect(tracker.phase).toBe('exited');
    expect(tracker.lastFinished).toMatchObject({ outputStart: 115, outputEnd: 130, doneEnd: 130, exitCode: null });
  });

  it('recognises a prompt by its look only when no command is under way', () => {
    const tracker = new CommandTracker();
    tracker.commandTyped(0);
    tracker.promptRecognised(0, 5);
    expect(tracker.phase).toBe('typed');
    tracker.outputStarted(20, 20);
    tracker.commandFinished(30, 40, 0);
    tracker.promptRecognised(40, 45);
    expect(tracker.atPrompt).toBe(true);
    expect(tracker.chromeWithin(0, 100)).toEqual([{ start: 0, end: 20 }, { start: 40, end: 45 }]);
  });

  it('finds the command that finished within a range', () => {
    const tracker = atPrompt();
    tracker.commandTyped(40);
    tracker.outputStarted(50, 55);
    tracker.commandFinished(70, 75, 0);
    expect(tracker.finishedBetween(0, 70)).toBeNull();
    expect(tracker.finishedBetween(0, 75)?.exitCode).toBe(0);
    expect(tracker.finishedBetween(71, 200)).toBeNull();
  });
});
