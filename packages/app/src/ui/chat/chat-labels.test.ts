import { describe, expect, it } from 'vitest';
import type { ChatInfo } from '@ptydeck/contract';
import { chatName } from './chat-labels.js';

const chat = (id: string, agentName: string) => ({
  info: { id, agentName, owner: id, cwd: '/', state: 'ready', error: null, createdAt: 0 } satisfies ChatInfo,
});

describe('chatName', () => {
  it('numbers the second and later chats with one agent', () => {
    const chats = [chat('a', 'demo'), chat('b', 'gemini'), chat('c', 'demo'), chat('d', 'demo')];
    expect(chats.map((item) => chatName(item, chats))).toEqual(['demo', 'gemini', 'demo 2', 'demo 3']);
  });
});
