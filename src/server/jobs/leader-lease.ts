// Fleet-wide background work (the alert evaluator's rounds) runs on one replica at a time: the replica that holds a
// lease, a session-level PostgreSQL advisory lock on a connection of its own. N replicas then do that work once, not
// N times over (each reading and decoding the fleet's rows only to find another holds the round's lock). PostgreSQL
// drops the lock with the connection, so when the holder stops, crashes or loses the database, another replica
// takes the lease at its next try (within one evaluation interval).
import pg from "pg";

/** What the lease needs of a connection: pg.Client's query, end and events. */
export interface LeaseConnection {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: "error" | "end", listener: () => void): unknown;
}

/** A query on the lease's connection that takes longer than this counts as a lost connection. */
const LEASE_QUERY_TIMEOUT_MS = 5_000;

export class LeaderLease {
  private connection?: LeaseConnection;
  private holding = false;

  constructor(
    private readonly options: {
      /** The advisory lock's key; distinct from any transaction-level lock the leased work takes itself. */
      key: bigint;
      connect: () => LeaseConnection;
    },
  ) {}

  /** Whether this process holds the lease now: keeps it while its connection answers, else tries to take it. */
  async hold(): Promise<boolean> {
    try {
      const connection = await this.open();
      if (this.holding) {
        // The lock lives as long as the session: a connection that still answers still holds it.
        await connection.query("SELECT 1");
        return true;
      }
      const { rows } = await connection.query("SELECT pg_try_advisory_lock($1::bigint) AS locked", [
        this.options.key.toString(),
      ]);
      this.holding = rows[0]?.locked === true;
      return this.holding;
    } catch {
      await this.drop();
      return false;
    }
  }

  /** Gives the lease up (the connection is closed, which releases the lock). */
  async release(): Promise<void> {
    await this.drop();
  }

  get held(): boolean {
    return this.holding;
  }

  private async open(): Promise<LeaseConnection> {
    if (this.connection) return this.connection;
    const connection = this.options.connect();
    const lost = () => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      this.holding = false;
    };
    connection.on("error", lost);
    connection.on("end", lost);
    this.connection = connection;
    try {
      await connection.connect();
    } catch (error) {
      lost();
      await connection.end().catch(() => {});
      throw error;
    }
    return connection;
  }

  private async drop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.holding = false;
    await connection?.end().catch(() => {});
  }
}

/** A lease over its own pg connection to `connectionString`. */
export function pgLeaderLease(connectionString: string, key: bigint): LeaderLease {
  return new LeaderLease({
    key,
    connect: () =>
      new pg.Client({
        connectionString,
        connectionTimeoutMillis: LEASE_QUERY_TIMEOUT_MS,
        query_timeout: LEASE_QUERY_TIMEOUT_MS,
        application_name: "packrat leader lease",
      }),
  });
}
