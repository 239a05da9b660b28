// A host of chats in a process of its own, for tests that kill it: it opens a chat with the agent of the
// agents.json in argv[2] (a config directory) in argv[3] (a directory), sends argv[4] as its first prompt,
// and prints {chatId} once the prompt is sent; argv[5], if given, is its host id (as a state directory's).
// Built core (dist) only: run buildCore() first.
import { ChatHost, createPtyService } from '@ptydeck/core';

const [configDir, cwd, prompt, hostId] = process.argv.slice(2);
const service = createPtyService(hostId ? { hostId } : {});
const host = new ChatHost({ service, configDir, launchDir: cwd });
const [agent] = (await host.agents()).agents;
const info = await host.open(agent.name, cwd);
let prompted = false;
host.onEvent(({ chatId, event }) => {
  if (chatId === info.id && event.type === 'state' && event.info.state === 'ready' && !prompted) {
    prompted = true;
    host.prompt(info.id, prompt);
    process.stdout.write(`${JSON.stringify({ chatId: info.id })}\n`);
  }
});
