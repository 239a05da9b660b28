/** What is learned about sessions from outside the PTY service (prompts, shell state, ports, leftover processes), merged for the panels. */
export { SessionFacts, type LearnedFacts, type SessionFactsEventMap, type SessionFactsWriter } from './session-facts.js';
export { ProcessWatch, type EndedProcesses, type ProcessWatchOptions } from './process-watch.js';
