import type { ZodError } from 'zod';

/**
 * Every problem a schema found, one clause each, for an error message:
 * `cols: cols must be an integer; env.A: an env value must not contain NUL`.
 * Issues at the root have no path prefix.
 */
export function formatZodIssues(error: Pick<ZodError, 'issues'>): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
