// Lease renewals, grouped: the heartbeats a replica receives while its previous renewal statement is still running
// go to PostgreSQL together, as one statement over arrays, when that one returns. Alone, a heartbeat is sent at once
// (no timer, nothing added to its latency); under load, a statement, a commit and a round trip serve many agents, so
// what a heartbeat costs the database and the replica falls as the fleet grows instead of queueing on the pool.
import type pg from "pg";
import { TOKEN_LAST_USED_RESOLUTION_MS } from "./agent-tokens-service";

/** One agent's renewal: its bearer token's hash and what its heartbeat says. */
export interface LeaseRenewal {
  tokenHash: string;
  revision: number;
  bootId: string;
}

/** What the statement found for one renewal. */
export interface LeaseOutcome {
  /** False: the token is unknown or revoked (and the rest null/false). */
  tokenFound: boolean;
  /** Null: the token has not registered an agent yet. */
  agentId: string | null;
  hostName: string | null;
  agentFound: boolean;
  decommissioned: boolean;
  previousBootId: string | null;
  /** Null: not renewed (decommissioned, or the agent is gone). */
  revision: number | null;
}

/**
 * The token checks and lease renewals of a group, in one statement: each token looked up by its hash (not revoked),
 * its last-used stamp written when older than TOKEN_LAST_USED_RESOLUTION_MS ($3), and its agent's lease renewed unless decommissioned. Timestamps are
 * UTC in `timestamp` columns, as Prisma writes them. The answer reads the agent rows as they were before the
 * statement (its snapshot), so the boot id it reports is the one the renewal replaced; it is read, not locked (a lock
 * is one more WAL record per heartbeat): one agent's heartbeats come one at a time, and the update itself still
 * waits for, and re-checks, a concurrent one. One row per renewal, by its position k.
 */
const RENEW_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $4::int[], $5::text[]) WITH ORDINALITY AS i("tokenHash", revision, "bootId", k)
), token AS (
  SELECT i.k, i.revision, i."bootId", t.id, t."agentId", t."lastUsedAt" FROM input i
  JOIN agent_token t ON t."tokenHash" = i."tokenHash" AND t."revokedAt" IS NULL
), stamp AS (
  UPDATE agent_token t SET "lastUsedAt" = $2::timestamp
  FROM token
  WHERE t.id = token.id AND t."revokedAt" IS NULL AND (token."lastUsedAt" IS NULL OR token."lastUsedAt" < $3::timestamp)
), lease AS (
  UPDATE agent a SET "lastHeartbeatAt" = $2::timestamp, "appliedRevision" = token.revision, "bootId" = token."bootId"
  FROM token
  WHERE a.id = token."agentId" AND a."decommissionedAt" IS NULL
  RETURNING token.k, a.revision
)
SELECT i.k, token.id IS NOT NULL AS "tokenFound", token."agentId", a."hostName", a.id IS NOT NULL AS "agentFound",
  a."decommissionedAt" IS NOT NULL AS decommissioned,
  CASE WHEN lease.k IS NOT NULL THEN a."bootId" END AS "previousBootId", lease.revision
FROM input i LEFT JOIN token ON token.k = i.k LEFT JOIN agent a ON a.id = token."agentId"
  LEFT JOIN lease ON lease.k = i.k
ORDER BY i.k`;

/** A group's size cap: past it the arrays and the result stay a few tens of KiB; the rest waits for the next. */
const MAX_RENEWALS_PER_STATEMENT = 500;

type Pending = {
  renewal: LeaseRenewal;
  resolve: (outcome: LeaseOutcome) => void;
  reject: (error: unknown) => void;
};

/** PostgreSQL's "deadlock detected": two groups (of two replicas) locked agents in opposite orders; retried. */
const DEADLOCK = "40P01";

export class LeaseRenewals {
  private queue: Pending[] = [];
  private running = false;

  constructor(private readonly pool: pg.Pool) {}

  /** Renews one lease, in the next statement this replica sends. */
  renew(renewal: LeaseRenewal): Promise<LeaseOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ renewal, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Sends what is queued, a group at a time, until nothing is. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const group = this.takeGroup();
        try {
          const outcomes = await this.send(group.map((p) => p.renewal));
          group.forEach((p, i) => p.resolve(outcomes[i]!));
        } catch (error) {
          for (const p of group) p.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * The next group: up to MAX_RENEWALS_PER_STATEMENT, each token once (an UPDATE … FROM takes one of two rows that
   * match the same agent and answers for only that one; a second renewal of the same token waits for the next group).
   */
  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    const later: Pending[] = [];
    const tokens = new Set<string>();
    for (const pending of this.queue) {
      if (group.length >= MAX_RENEWALS_PER_STATEMENT || tokens.has(pending.renewal.tokenHash)) later.push(pending);
      else {
        tokens.add(pending.renewal.tokenHash);
        group.push(pending);
      }
    }
    this.queue = later;
    return group;
  }

  private async send(renewals: readonly LeaseRenewal[]): Promise<LeaseOutcome[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.statement(renewals);
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK || attempt >= 3) throw error;
      }
    }
  }

  private async statement(renewals: readonly LeaseRenewal[]): Promise<LeaseOutcome[]> {
    const now = new Date();
    // Named: each pooled connection parses and plans it once, not on every group.
    const { rows } = await this.pool.query<LeaseOutcome & { k: string }>({
      name: "packrat_lease_renewals",
      text: RENEW_SQL,
      values: [
        renewals.map((r) => r.tokenHash),
        now.toISOString(),
        new Date(now.getTime() - TOKEN_LAST_USED_RESOLUTION_MS).toISOString(),
        renewals.map((r) => r.revision),
        renewals.map((r) => r.bootId),
      ],
    });
    const outcomes: LeaseOutcome[] = new Array(renewals.length);
    for (const { k, ...outcome } of rows) outcomes[Number(k) - 1] = outcome;
    if (rows.length !== renewals.length || outcomes.includes(undefined as never))
      throw new Error(`lease renewal answered ${rows.length} rows for ${renewals.length} renewals`);
    return outcomes;
  }
}

const byPool = new WeakMap<pg.Pool, LeaseRenewals>();

/** The replica's renewals on this pool (one group in flight per pool). */
export function leaseRenewals(pool: pg.Pool): LeaseRenewals {
  let renewals = byPool.get(pool);
  if (!renewals) byPool.set(pool, (renewals = new LeaseRenewals(pool)));
  return renewals;
}
