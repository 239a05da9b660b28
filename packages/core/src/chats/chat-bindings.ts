// Per-chat credentials for ptydeck's MCP server, so the shells a chat's agent opens through it land under that
// chat.
import { createHash, randomBytes } from 'node:crypto';

/** Who an MCP connection presenting a binding speaks for. */
export interface ChatBinding {
  /** The chat's owner id: the connection's sessions get it, and the fence is drawn around it. */
  owner: string;
  /** The agent's name, on the sessions' badges. */
  agentName: string;
  /** The chat's directory: where the agent's shells start unless it names another (not the MCP server's, nor ptydeck's). */
  cwd: string;
  /**
   * The chat's agent process, once started. The credential travels in the
   * environment of the MCP server the agent starts, where every process of the
   * developer's can read it, so it is honoured only from this process's
   * descendants (McpHttpEndpoint asks the kernel).
   */
  agentPid?: number;
}

/**
 * Per-chat credentials for ptydeck's own MCP server, handed to the agent in
 * session/new so every shell it opens through the terminal tool lands under
 * its chat. Random, revoked when the chat closes, and bound to the chat's
 * agent process (see agentPid). Looked up
 * by hash, so a lookup's timing says nothing about the stored secrets.
 */
export class ChatBindings {
  private readonly byHash = new Map<string, ChatBinding>();

  /** A fresh credential for `binding`. */
  issue(binding: ChatBinding): string {
    const secret = randomBytes(32).toString('base64url');
    this.byHash.set(hash(secret), { ...binding });
    return secret;
  }

  /** Records the chat's agent process: only it and what it starts may present the credential. */
  attachProcess(secret: string, pid: number): void {
    const found = this.byHash.get(hash(secret));
    if (found) found.agentPid = pid;
  }

  /** The chat a credential speaks for; undefined when unknown or revoked. */
  resolve(secret: string): ChatBinding | undefined {
    const found = this.byHash.get(hash(secret));
    return found ? { ...found } : undefined;
  }

  revoke(secret: string): void {
    this.byHash.delete(hash(secret));
  }
}

function hash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}
