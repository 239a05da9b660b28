/**
 * Generators of hostile input for the fuzz suite: random and mutated panel
 * frames and MCP requests (wrong types, huge strings, invalid UTF-8, deeply
 * nested JSON, unknown fields). Everything is drawn from one seeded PRNG, so a
 * failing run reproduces from its seed and index.
 */

export class Dice {
  constructor(readonly random: () => number) {}

  int(max: number): number {
    return Math.floor(this.random() * max);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz0123456789',
  ' \t\r\n\\"\'`$;|&<>(){}[]',
  '\u0000\u0001\u0003\u0004\u001b\u007f',
  'éß漢字🙂👩‍💻\u200b\u202e\ufeff',
];
const LONE_SURROGATES = ['\ud800', '\udfff', '\udbff\u0041'];
const SPECIAL_NUMBERS = [0, -0, -1, 1.5, -1e9, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE];
/** Large enough to cross every string limit in the protocol and the tools (1 Mi characters). */
const HUGE_CHARS = 1024 * 1024 + 17;

export function randomString(dice: Dice, maxLength = 40): string {
  if (dice.chance(0.003)) return 'x'.repeat(HUGE_CHARS);
  if (dice.chance(0.05)) return dice.pick(LONE_SURROGATES);
  const alphabet = dice.pick(ALPHABETS);
  const chars = Array.from(alphabet);
  let out = '';
  const length = dice.int(maxLength);
  for (let i = 0; i < length; i++) out += dice.pick(chars);
  return out;
}

function randomNumber(dice: Dice): number {
  return dice.chance(0.5) ? dice.pick(SPECIAL_NUMBERS) : dice.int(2000) - 500;
}

/** Any JSON value, nested at most `depth` levels. */
export function randomValue(dice: Dice, depth = 3): unknown {
  const kind = dice.int(depth > 0 ? 7 : 5);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return dice.chance(0.5);
    case 2:
      return randomNumber(dice);
    case 3:
    case 4:
      return randomString(dice);
    case 5:
      return Array.from({ length: dice.int(4) }, () => randomValue(dice, depth - 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = dice.int(4); i > 0; i--) object[randomString(dice, 8)] = randomValue(dice, depth - 1);
      if (dice.chance(0.1)) object['__proto__'] = { polluted: true };
      return object;
    }
  }
}

/** Deeply nested JSON text, built as text: JSON.stringify itself would overflow the stack at these depths. */
export function deepJson(dice: Dice): string {
  // Parsing grows faster than linearly with depth (about 50 ms at 100 000 levels): mostly a few thousand, now and then the extreme.
  const depth = dice.chance(0.02) ? 100_000 : 1 + dice.int(5_000);
  return dice.chance(0.5) ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const DEEP_MARK = '\u0000deep\u0000';

/** A JSON value with its wrong-typed, oversized, nested or extra variants. */
function mutateValue(dice: Dice, value: unknown): unknown {
  switch (dice.int(9)) {
    case 0:
      return randomString(dice);
    case 1:
      return randomNumber(dice);
    case 2:
      return null;
    case 3:
      return [value];
    case 4:
      return { value };
    case 5:
      return DEEP_MARK;
    case 6:
      return typeof value === 'string' ? value + randomString(dice) : randomValue(dice);
    case 7:
      return typeof value === 'number' ? value * -1 + dice.pick([0.5, 1e6, -1]) : true;
    default:
      return randomValue(dice);
  }
}

/** Applies one to three mutations to an object: changed values, deleted fields, unknown fields. */
export function mutateObject(dice: Dice, object: Record<string, unknown>): Record<string, unknown> {
  const out = { ...object };
  for (let n = 1 + dice.int(3); n > 0; n--) {
    const keys = Object.keys(out);
    const op = dice.int(4);
    if (op === 0 && keys.length > 0) delete out[dice.pick(keys)];
    else if (op === 1) out[dice.chance(0.5) ? randomString(dice, 12) : dice.pick(['extra', 'constructor', 'toString', 'type'])] = randomValue(dice, 2);
    else if (keys.length > 0) {
      const key = dice.pick(keys);
      out[key] = mutateValue(dice, out[key]);
    }
  }
  return out;
}

/** JSON text for a value; a DEEP_MARK anywhere in it becomes deeply nested JSON. */
export function toJsonText(dice: Dice, value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  const mark = JSON.stringify(DEEP_MARK);
  return text.includes(mark) ? text.split(mark).join(deepJson(dice)) : text;
}

/** Byte-level damage to an encoded message: flipped bytes, truncation, invalid UTF-8 spliced in. */
export function damageBytes(dice: Dice, text: string): Buffer {
  let bytes = Buffer.from(text, 'utf8');
  switch (dice.int(4)) {
    case 0: {
      bytes = Buffer.from(bytes);
      for (let n = 1 + dice.int(4); n > 0 && bytes.length > 0; n--) bytes[dice.int(bytes.length)] = dice.int(256);
      return bytes;
    }
    case 1:
      return bytes.subarray(0, dice.int(bytes.length + 1));
    case 2: {
      const at = dice.int(bytes.length + 1);
      const invalid = dice.pick([Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0x80, 0x80])]);
      return Buffer.concat([bytes.subarray(0, at), invalid, bytes.subarray(at)]);
    }
    default:
      return Buffer.concat([bytes, dice.bytes(1 + dice.int(16))]);
  }
}
