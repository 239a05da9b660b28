#!/usr/bin/env node
/**
 * A scripted model on 127.0.0.1, for driving real ACP agents offline (see
 * scripts/try-acp-agent.mjs). It speaks Anthropic's Messages API (POST
 * /v1/messages, streamed as SSE or not), and OpenAI's Chat Completions and
 * Responses APIs (POST /v1/chat/completions, /v1/responses, streamed), and
 * Gemini's (POST /v1beta/models/M:streamGenerateContent or :generateContent).
 *
 * The last user prompt picks what the "model" does, by its first word:
 *   bash <cmd>   call the agent's shell tool (Bash, shell, exec_command, ...) with <cmd>
 *   mcp <cmd>    call ptydeck's MCP tool terminal_run with <cmd> (whatever prefix the agent gives it)
 *   write <path> <text>  call the agent's file-writing tool
 *   tools        answer with the names of the tools the agent offered
 *   slow         stream text for 60 s (to try cancelling)
 *   anything else: a short text answer.
 * Once the last message is a tool result, it answers with text quoting the
 * start of that result, and the turn ends.
 *
 *   node scripts/fake-model-server.mjs [port]   prints "listening <url>"; logs requests to stderr,
 *   and every request body to the file $FAKE_MODEL_DUMP when set
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const log = (...args) => process.stderr.write(`[fake-model] ${args.join(' ')}\n`);
let ids = 0;
const nextId = (prefix) => `${prefix}_${Date.now().toString(36)}${(ids++).toString(36)}`;

/** What to do for a conversation: { text } or { tool, input } or { slow: true }. */
function decide({ prompt, toolResult, toolNames }) {
  if (toolResult !== undefined) return { text: `The tool said: ${toolResult.slice(0, 200)}` };
  const [word, ...rest] = prompt.trim().split(/\s+/);
  const arg = prompt.trim().slice(word.length).trim();
  const pick = (...candidates) => candidates.map((c) => toolNames.find((n) => c.test(n))).find(Boolean);
  switch (word) {
    case 'bash': {
      const tool = pick(/^Bash$/, /__Bash$/, /^shell$/, /^exec_command$/, /^bash$/, /^run_shell_command$/);
      if (!tool) return { text: `no shell tool among: ${toolNames.join(', ')}` };
      const input = /exec_command/.test(tool)
        ? { cmd: arg }
        : tool === 'shell'
          ? { command: ['bash', '-lc', arg] }
          : // Older Claude adapters' mcp__acp__Bash wants a timeout.
            { command: arg, description: 'Run the requested command', ...(tool.startsWith('mcp__') ? { timeout: 60000 } : {}) };
      return { tool, input };
    }
    case 'mcp': {
      const tool = pick(/ptydeck.*terminal_run$/);
      return tool ? { tool, input: { command: arg, timeout_ms: 10000 } } : { text: `no ptydeck terminal_run among: ${toolNames.join(', ')}` };
    }
    case 'write': {
      const tool = pick(/^Write$/, /__Write$/, /^write$/, /^write_file$/);
      const [path, ...words] = rest;
      if (!tool) return { text: `no write tool among: ${toolNames.join(', ')}` };
      return { tool, input: tool === 'write' ? { filePath: path, content: words.join(' ') } : { file_path: path, content: words.join(' ') } };
    }
    case 'tools':
      return { text: `tools: ${toolNames.join(', ')}` };
    case 'slow':
      return { slow: true };
    default:
      return { text: `hello from the fake model (you said: ${prompt.slice(0, 80)})` };
  }
}

const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (typeof b === 'string' ? b : (b.text ?? b.content ?? ''))).join('') : '';

/** The prompt is the user's text with the harness's reminders cut away. */
const cleanPrompt = (text) => text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();

// ---- Anthropic Messages ----
function anthropicConversation(body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1) ?? { content: '' };
  const blocks = Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }];
  const result = blocks.find((b) => b.type === 'tool_result');
  const texts = blocks.filter((b) => b.type === 'text').map((b) => cleanPrompt(b.text)).filter(Boolean);
  return {
    prompt: texts.at(-1) ?? '',
    toolResult: result ? textOf(result.content) : undefined,
    toolNames: (body.tools ?? []).map((t) => t.name).filter(Boolean),
  };
}

async function anthropic(body, res) {
  const conversation = anthropicConversation(body);
  const plan = decide(conversation);
  log('anthropic', body.model, `tools=${conversation.toolNames.length}`, JSON.stringify(conversation.prompt.slice(0, 60)), '->', JSON.stringify(plan).slice(0, 120));
  const id = nextId('msg');
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const content = plan.tool
    ? [{ type: 'tool_use', id: nextId('toolu'), name: plan.tool, input: plan.input }]
    : [{ type: 'text', text: plan.text ?? 'slow answer' }];
  const stopReason = plan.tool ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } });
  if (plan.tool) {
    send('content_block_start', { index: 0, content_block: { ...content[0], input: {} } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(plan.input) } });
    send('content_block_stop', { index: 0 });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const words = plan.slow ? Array.from({ length: 120 }, (_, i) => `word${i} `) : content[0].text.match(/\S+\s*/g) ?? [''];
    for (const word of words) {
      if (res.destroyed) return;
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } });
      await new Promise((r) => setTimeout(r, plan.slow ? 500 : 5));
    }
    send('content_block_stop', { index: 0 });
  }
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.end();
}

// ---- OpenAI Chat Completions ----
function chatConversation(body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1) ?? {};
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  return {
    prompt: cleanPrompt(textOf(lastUser?.content ?? '')),
    toolResult: last.role === 'tool' ? textOf(last.content) : undefined,
    toolNames: (body.tools ?? []).map((t) => t.function?.name ?? t.name).filter(Boolean),
  };
}

async function chatCompletions(body, res) {
  const conversation = chatConversation(body);
  const plan = decide(conversation);
  log('chat', body.model, `tools=${conversation.toolNames.length}`, JSON.stringify(conversation.prompt.slice(0, 60)), '->', JSON.stringify(plan).slice(0, 120));
  const id = nextId('chatcmpl');
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (delta, finish = null, extra = {}) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  send({ role: 'assistant', content: '' });
  if (plan.tool) {
    send({ tool_calls: [{ index: 0, id: nextId('call'), type: 'function', function: { name: plan.tool, arguments: JSON.stringify(plan.input) } }] });
    send({}, 'tool_calls');
  } else {
    const words = plan.slow ? Array.from({ length: 120 }, (_, i) => `word${i} `) : plan.text.match(/\S+\s*/g) ?? [''];
    for (const word of words) {
      if (res.destroyed) return;
      send({ content: word });
      await new Promise((r) => setTimeout(r, plan.slow ? 500 : 5));
    }
    send({}, 'stop');
  }
  res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

// ---- OpenAI Responses ----
function responsesConversation(body) {
  const input = Array.isArray(body.input) ? body.input : [{ type: 'message', role: 'user', content: body.input ?? '' }];
  const last = input.at(-1) ?? {};
  const lastUser = [...input].reverse().find((m) => m.role === 'user');
  const userText = Array.isArray(lastUser?.content) ? lastUser.content.map((c) => c.text ?? '').filter((t) => !t.startsWith('<')).join('') : textOf(lastUser?.content ?? '');
  // Codex groups an MCP server's tools in a namespace tool; they are called by namespace and name.
  const namespaced = new Map();
  for (const tool of body.tools ?? []) {
    if (tool.type === 'namespace') for (const inner of tool.tools ?? []) namespaced.set(`${tool.name}__${inner.name}`, { namespace: tool.name, name: inner.name });
  }
  return {
    prompt: cleanPrompt(userText),
    toolResult: /_call_output$/.test(last.type ?? '') ? (typeof last.output === 'string' ? last.output : JSON.stringify(last.output)) : undefined,
    toolNames: [...(body.tools ?? []).filter((t) => t.type !== 'namespace').map((t) => t.name ?? t.type), ...namespaced.keys()].filter(Boolean),
    namespaced,
  };
}

async function responses(body, res) {
  const conversation = responsesConversation(body);
  const plan = decide(conversation);
  log('responses', body.model, `tools=${conversation.toolNames.join(',')}`, JSON.stringify(conversation.prompt.slice(0, 60)), '->', JSON.stringify(plan).slice(0, 120));
  const id = nextId('resp');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'in_progress', output: [] };
  send('response.created', { response });
  let item;
  if (plan.tool) {
    const named = conversation.namespaced.get(plan.tool) ?? { name: plan.tool };
    item = { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), ...named, arguments: JSON.stringify(plan.input), status: 'completed' };
    send('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    send('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: item.arguments });
    send('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments });
  } else {
    const words = plan.slow ? Array.from({ length: 120 }, (_, i) => `word${i} `) : plan.text.match(/\S+\s*/g) ?? [''];
    item = { type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: words.join(''), annotations: [] }] };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    send('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const word of words) {
      if (res.destroyed) return;
      send('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: word });
      await new Promise((r) => setTimeout(r, plan.slow ? 500 : 5));
    }
    send('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text: words.join('') });
    send('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part: item.content[0] });
  }
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', {
    response: { ...response, status: 'completed', output: [item], usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } },
  });
  res.end();
}

// ---- Gemini generateContent ----
function geminiConversation(body) {
  const contents = body.contents ?? [];
  const last = contents.at(-1) ?? { parts: [] };
  const parts = last.parts ?? [];
  const response = parts.find((p) => p.functionResponse);
  const lastUser = [...contents].reverse().find((c) => c.role === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string'));
  const texts = (lastUser?.parts ?? []).map((p) => p.text).filter((t) => typeof t === 'string').map(cleanPrompt).filter(Boolean);
  return {
    prompt: texts.at(-1) ?? '',
    toolResult: response ? JSON.stringify(response.functionResponse.response ?? {}) : undefined,
    toolNames: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
  };
}

/** A value that fits a JSON schema (Gemini's side questions, e.g. its model router, want JSON). */
function fromSchema(schema = {}) {
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (String(schema.type ?? 'object').toLowerCase()) {
    case 'string':
      return 'fake';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, fromSchema(value)]));
  }
}

async function gemini(body, res, stream) {
  const conversation = geminiConversation(body);
  const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
  const plan = schema ? { text: JSON.stringify(fromSchema(schema)) } : decide(conversation);
  log('gemini', `tools=${conversation.toolNames.join(',')}`, JSON.stringify(conversation.prompt.slice(0, 60)), '->', JSON.stringify(plan).slice(0, 120));
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const chunk = (parts, finishReason) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }], usageMetadata, modelVersion: 'fake-model' });
  const words = plan.tool ? [] : plan.slow ? Array.from({ length: 120 }, (_, i) => `word${i} `) : plan.text.match(/\S+\s*/g) ?? [''];
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk(plan.tool ? [{ functionCall: { name: plan.tool, args: plan.input } }] : [{ text: words.join('') }], 'STOP')));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data) => res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
  if (plan.tool) send(chunk([{ functionCall: { name: plan.tool, args: plan.input } }], 'STOP'));
  else {
    for (const [i, word] of words.entries()) {
      if (res.destroyed) return;
      send(chunk([{ text: word }], i === words.length - 1 ? 'STOP' : undefined));
      await new Promise((r) => setTimeout(r, plan.slow ? 500 : 5));
    }
  }
  res.end();
}

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      // Not JSON: answered below by path alone.
    }
    if (process.env.FAKE_MODEL_DUMP) appendFileSync(process.env.FAKE_MODEL_DUMP, `${JSON.stringify({ path, body })}\n`);
    if (req.method === 'POST' && /:(stream)?[gG]enerateContent$/.test(path)) {
      gemini(body, res, path.endsWith(':streamGenerateContent')).catch((error) => {
        log('error', error.stack);
        res.destroy();
      });
      return;
    }
    if (req.method === 'POST' && path.endsWith(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const route = path.endsWith('/messages') ? anthropic : path.endsWith('/chat/completions') ? chatCompletions : path.endsWith('/responses') ? responses : null;
    if (req.method === 'POST' && route) {
      route(body, res).catch((error) => {
        log('error', error.stack);
        res.destroy();
      });
      return;
    }
    log('other', req.method, req.url);
    if (path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }], models: [] }));
      return;
    }
    res.writeHead(path.endsWith('/count_tokens') ? 200 : 404, { 'content-type': 'application/json' });
    res.end(path.endsWith('/count_tokens') ? JSON.stringify({ input_tokens: 10 }) : JSON.stringify({ error: { type: 'not_found', message: `fake model: no ${path}` } }));
  });
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
