// Setup of the test files that share workers and loaded modules (vitest.config.ts, `shared`). A module is
// evaluated once for all the files a worker runs, so isolated-env's afterAll is registered in the first
// of them only; this file runs before each of them and removes that file's temporary directories after it.
import { afterAll } from 'vitest';
import { removeFileTempDirs } from './isolated-env.js';

afterAll(removeFileTempDirs);
