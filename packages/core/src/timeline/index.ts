/** The command timeline (issue 36): command records, chunk times, the agent's history tool and recordings. */
export { Timeline, type PersistedTimeline, type TimelineOptions, type TimelineQuery } from './timeline.js';
export { ChunkTimes, type ChunkTime } from './chunk-times.js';
export { parsePersistedTimeline } from './persisted.js';
export { registerHistoryTool, type HistoryToolDeps } from './history-tool.js';
export { RECORDING_FORMATS, reviewedRecording, type RecordingFormat } from './recording.js';
export { searchOutput, SearchTooCostlyError, type SearchMatch, type SearchSession } from './output-search.js';
