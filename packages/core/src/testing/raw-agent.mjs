// An ACP agent written without the SDK, for the frames an SDK would never
// send: on its first prompt it writes malformed JSON-RPC to ptydeck, collects
// what ptydeck answers (by id, or the id-less parse error), and reports that
// as one agent_message_chunk holding JSON. Its stdout carries frames only.
import { createInterface } from 'node:readline';

const send = (frame) => process.stdout.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`);
const answers = new Map();
const waiting = new Map();
const parseErrors = [];

/** Resolves with ptydeck's answer to the raw request `id` (or to a frame it could not parse, for id null). */
function answerTo(id) {
  if (answers.has(id)) return Promise.resolve(answers.get(id));
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function probe(sessionId) {
  const bad = [
    ['notJson', '{"jsonrpc":"2.0","id":"r-json","method":'],
    ['notAnObject', '[1,2,3]'],
    ['wrongParamTypes', { jsonrpc: '2.0', id: 'r-types', method: 'terminal/create', params: { sessionId, command: 42 } }],
    ['missingParams', { jsonrpc: '2.0', id: 'r-missing', method: 'fs/read_text_file' }],
    ['unknownMethod', { jsonrpc: '2.0', id: 'r-method', method: 'terminal/teleport', params: { sessionId } }],
    ['agentMethodSentToClient', { jsonrpc: '2.0', id: 'r-agent-method', method: 'session/prompt', params: { sessionId, prompt: [] } }],
    ['outputBeforeCreate', { jsonrpc: '2.0', id: 'r-order', method: 'terminal/output', params: { sessionId, terminalId: 'never-created' } }],
  ];
  const seen = {};
  for (const [name, frame] of bad) {
    const id = typeof frame === 'string' || Array.isArray(frame) ? null : frame.id;
    const before = parseErrors.length;
    send(frame);
    if (id === null) {
      // An unparsable frame has no id to answer; a well-behaved peer answers with id null, or not at all.
      // A valid request right after tells which: its answer comes after any answer to the bad frame.
      send({ jsonrpc: '2.0', id: `after-${name}`, method: 'fs/read_text_file', params: { sessionId, path: '/nonexistent-ptydeck-probe' } });
      await answerTo(`after-${name}`);
      seen[name] = parseErrors.length > before ? parseErrors[parseErrors.length - 1] : 'no answer';
    } else {
      seen[name] = (await answerTo(id)).error ?? 'answered with a result';
    }
  }
  return seen;
}

const sessionId = `raw-${process.pid}`;
createInterface({ input: process.stdin }).on('line', (line) => {
  const frame = JSON.parse(line);
  if (frame.method === 'initialize') {
    send({ jsonrpc: '2.0', id: frame.id, result: { protocolVersion: 1, agentCapabilities: {} } });
  } else if (frame.method === 'session/new') {
    send({ jsonrpc: '2.0', id: frame.id, result: { sessionId } });
  } else if (frame.method === 'session/prompt') {
    void probe(sessionId).then((seen) => {
      send({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: JSON.stringify(seen) } } },
      });
      send({ jsonrpc: '2.0', id: frame.id, result: { stopReason: 'end_turn' } });
    });
  } else if (frame.method === undefined && 'id' in frame) {
    if (frame.id === null) parseErrors.push(frame.error);
    answers.set(frame.id, frame);
    waiting.get(frame.id)?.(frame);
  }
});
