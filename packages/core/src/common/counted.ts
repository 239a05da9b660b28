// A count with its noun, in the plural where it needs one: "1 running session", "3 chats" (never "session(s)").

/** `n noun`, with an s unless n is 1; noun is the singular, and takes a plain s. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
