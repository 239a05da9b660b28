import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { judgeFrame } from './jsonrpc-frame.js';

/** Requests and notifications at the edges of what the SDK's schema takes, as JSON.parse gives them. */
const FRAMES = [
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"terminal_run","arguments":{"command":"true"}}}',
  '{"jsonrpc":"2.0","id":"a","method":"tools/list"}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}',
  '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
  // Integers past 2^53 are integers to JavaScript, not to the schema's int().
  '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1e300,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":7},"name":"x"}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":5}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":{"x":1}}}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":[]}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}',
  '{"jsonrpc":"2.0","method":"x","params":{"task":{"ttl":"soon"}}}',
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
];

describe('judgeFrame', () => {
  it("takes exactly the requests and notifications the SDK's schema takes, each as the schema reads it", () => {
    for (const text of FRAMES) {
      const value: unknown = JSON.parse(text);
      const schema = JSONRPCMessageSchema.safeParse(value);
      const verdict = judgeFrame(value, { batches: true });
      expect({ text, taken: verdict.kind === 'messages' }).toEqual({ text, taken: schema.success });
      if (verdict.kind === 'messages' && schema.success) expect(verdict.messages).toEqual([schema.data]);
    }
  });
});
