// Text a session, an agent or a record on disk chose, as the panel draws it.

/**
 * Controls, the bidirectional marks, overrides and isolates, zero-width spaces and line separators: what a
 * page draws as nothing or uses to reorder the text around it. (The joiners that make emoji and some
 * scripts are left alone.)
 */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A command line, a title or a name as the panel shows it (a Timeline row, a tab, an overview row): each character of HIDDEN as its `\\u`
 * escape. A command's text is the agent's to choose (and a record an earlier host left on disk says what
 * it likes): with a right-to-left override in it, `echo ok #<RLO> ~ fr- mr` read "echo ok #rm -rf ~",
 * so the row named a command other than the one that ran.
 */
export function shownText(text: string): string {
  return text.replace(HIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
