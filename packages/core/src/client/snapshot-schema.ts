// The contract's snapshot schema, loaded (with zod) only for an answer that fails snapshot-check.ts.
export { formatZodIssues, SnapshotMessage } from '@ptydeck/contract';
