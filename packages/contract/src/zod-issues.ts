/**
 * Untrusted JSON text checked against a zod schema, and what a schema found
 * wrong put into words: one way for every place that reads JSON from outside
 * (a socket frame, a file on disk, a request's params).
 */
import type { output, ZodType } from 'zod';

/** What formatZodIssues reads: zod's issues, or any schema library's of the same shape (the MCP SDK's zod). */
export interface IssueList {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
}

/**
 * Every problem a schema found (or the first `max`), one clause each, for an
 * error message: `cols: cols must be an integer; env.A: an env value must not
 * contain NUL`. Issues at the root have no path prefix.
 */
export function formatZodIssues(error: IssueList, max = Number.POSITIVE_INFINITY): string {
  return error.issues
    .slice(0, max)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** JSON text checked against a schema: its value, or why not, in words each caller frames. */
export type JsonCheck<T> =
  | { ok: true; value: T }
  /** Not JSON at all; `error` is the parser's message. */
  | { ok: false; json: false; error: string }
  /** JSON the schema refused; `error` is formatZodIssues', `value` the JSON, for what it still tells (a request id to answer). */
  | { ok: false; json: true; value: unknown; error: string };

export function parseJsonAs<S extends ZodType>(schema: S, text: string): JsonCheck<output<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, json: false, error: error instanceof Error ? error.message : String(error) };
  }
  return checkJsonAs(schema, json);
}

/** Parsed JSON checked against a schema, as parseJsonAs checks it (for a caller that looked at the JSON first). */
export function checkJsonAs<S extends ZodType>(schema: S, json: unknown): JsonCheck<output<S>> {
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, json: true, value: json, error: formatZodIssues(parsed.error) };
}
