// The identities of tokens this replica verified for long-polls, by token hash. An agent holds two long-polls and
// re-opens each as soon as it returns: verifying its token in the database every time is one statement per poll
// (hundreds a second on a fleet of thousands) for an answer that changes only when the token is revoked, and every
// revocation NOTIFYs packrat_agent_token_revoked, which this replica hears on its LISTEN connection. So a token
// verified here is taken on trust for up to a minute (TOKEN_LAST_USED_RESOLUTION_MS, as long as its last-used stamp
// may lag anyway), and only while the replica has listened without a break since it was checked and heard no
// revocation of it; otherwise the database is asked again.
import { notifyHub } from "@/server/realtime/notify-hub";
import {
  authenticateAgentToken,
  hashAgentToken,
  TOKEN_LAST_USED_RESOLUTION_MS,
  type AgentIdentity,
} from "@/server/services/agent-tokens-service";

interface Verified {
  agent: AgentIdentity;
  /** performance.now() before the database check. */
  checkedFrom: number;
}

/** Past this many tokens, expired entries are dropped (a fleet's agents hold one token each). */
const SWEEP_PAST = 10_000;
const verified = new Map<string, Verified>();

function sweep(now: number): void {
  for (const [hash, entry] of verified)
    if (now - entry.checkedFrom >= TOKEN_LAST_USED_RESOLUTION_MS) verified.delete(hash);
}

/**
 * The long-poll's agent (null: the token is unknown or revoked), and when its token was last checked in the database
 * (the revocation check that follows covers everything since).
 */
export async function longPollIdentity(token: string): Promise<{ agent: AgentIdentity | null; checkedFrom: number }> {
  const hash = hashAgentToken(token);
  const now = performance.now();
  const known = verified.get(hash);
  if (
    known &&
    now - known.checkedFrom < TOKEN_LAST_USED_RESOLUTION_MS &&
    notifyHub().revokedSince(known.agent.tokenId, known.checkedFrom) === false
  )
    return known;
  verified.delete(hash);
  const checkedFrom = performance.now();
  const agent = await authenticateAgentToken(token);
  // Only a registered token's identity is kept: an unregistered one gains its agent when it registers.
  if (agent?.agentId) {
    if (verified.size >= SWEEP_PAST) sweep(checkedFrom);
    verified.set(hash, { agent, checkedFrom });
  }
  return { agent, checkedFrom };
}
