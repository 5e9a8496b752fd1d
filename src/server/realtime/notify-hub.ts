// PostgreSQL LISTEN/NOTIFY shared by every long-poll in this process: one dedicated connection, many waiters.
// Any control-plane replica can answer an agent because a change made on one replica NOTIFYs all of them.
import pg from "pg";
import type { WaitSignal } from "@/core/cancellation/cancellation";
import { env } from "@/server/env";

type Waiter = (payload: string) => void;

class NotifyHub {
  private client?: pg.Client;
  private connecting?: Promise<pg.Client>;
  private waiters = new Map<string, Set<Waiter>>(); // key: `${channel}:${payload}`
  private channelListeners = new Map<Channel, Set<Waiter>>();
  /** Bumped whenever the listening connection changes: what was learnt under one generation holds only within it. */
  private generation = 0;
  /** performance.now() when the current connection's LISTENs took effect; undefined while not listening. */
  private listeningFrom?: number;
  /** Tokens revoked (by NOTIFY) while listening, with when it arrived, for REVOKED_MEMORY_MS. */
  private revoked = new Map<string, number>();

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: env().DATABASE_URL });
      client.on("notification", (message) => {
        const payload = message.payload ?? "";
        if (message.channel === "packrat_agent_token_revoked") this.rememberRevoked(payload);
        for (const listener of this.channelListeners.get(message.channel as Channel) ?? []) listener(payload);
        const key = `${message.channel}:${payload}`;
        for (const wake of this.waiters.get(key) ?? []) wake(payload);
      });
      // A lost connection is replaced on the next wait; waiters time out and poll again meanwhile.
      const lost = () => {
        if (this.client === client || !this.client) {
          this.client = undefined;
          this.connecting = undefined;
          this.listeningFrom = undefined;
          this.generation++;
        }
      };
      client.on("error", lost);
      client.on("end", lost);
      await client.connect();
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
      this.generation++;
      this.listeningFrom = performance.now();
      this.client = client;
      return client;
    })();
    try {
      return await this.connecting;
    } catch (error) {
      this.connecting = undefined;
      throw error;
    }
  }

  /**
   * Registers interest in (`channel`, `payload`) at once, so a caller can subscribe, then check the database, then
   * wait: a change committed between the check and the wait still wakes it. `wait` resolves true when notified,
   * false after `timeoutMs` or on abort.
   */
  async subscribe(
    channel: Channel,
    payload: string,
  ): Promise<{ wait: (timeoutMs: number, signal?: WaitSignal) => Promise<boolean>; cancel: () => void }> {
    await this.connection();
    const key = `${channel}:${payload}`;
    let notified = false;
    let wake: (() => void) | undefined;
    const set = this.waiters.get(key) ?? new Set<Waiter>();
    this.waiters.set(key, set);
    const waiter: Waiter = () => {
      notified = true;
      wake?.();
    };
    set.add(waiter);
    const cancel = () => {
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    };
    const wait = (timeoutMs: number, signal?: WaitSignal) =>
      new Promise<boolean>((resolve) => {
        if (notified || signal?.aborted) {
          cancel();
          resolve(notified);
          return;
        }
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", finish);
          cancel();
          resolve(notified);
        };
        const timer = setTimeout(finish, timeoutMs);
        wake = finish;
        signal?.addEventListener("abort", finish);
      });
    return { wait, cancel };
  }

  /** Waiters (subscriptions and watches) registered on (`channel`, `payload`) now: a held long-poll's, for tests. */
  waiterCount(channel: Channel, payload: string): number {
    return this.waiters.get(`${channel}:${payload}`)?.size ?? 0;
  }

  /** The current connection's generation, once listening: a view fed by NOTIFYs is valid within one generation. */
  async listeningGeneration(): Promise<number> {
    await this.connection();
    return this.generation;
  }

  /** The generation now, without connecting (undefined while not listening). */
  currentGeneration(): number | undefined {
    return this.client ? this.generation : undefined;
  }

  /** Calls `onNotify` with the payload of every NOTIFY on `channel`, for the life of the process. */
  onChannel(channel: Channel, onNotify: (payload: string) => void): void {
    const set = this.channelListeners.get(channel) ?? new Set<Waiter>();
    this.channelListeners.set(channel, set);
    set.add(onNotify);
  }

  private rememberRevoked(tokenId: string): void {
    const now = performance.now();
    this.revoked.delete(tokenId);
    this.revoked.set(tokenId, now);
    for (const [id, at] of this.revoked) {
      if (now - at <= REVOKED_MEMORY_MS) break; // in arrival order: the rest are newer
      this.revoked.delete(id);
    }
  }

  /**
   * Whether the token was revoked after `since` (a performance.now() taken before the token was checked), from the
   * NOTIFYs alone: undefined when this process cannot tell (it was not listening all the time since then), so the
   * caller asks the database.
   */
  revokedSince(tokenId: string, since: number): boolean | undefined {
    if (this.listeningFrom === undefined || this.listeningFrom > since) return undefined;
    if (performance.now() - since > REVOKED_MEMORY_MS / 2) return undefined;
    return this.revoked.has(tokenId);
  }

  /** Calls `onNotify` at every NOTIFY of (`channel`, `payload`) until the returned function is called. */
  async watch(channel: Channel, payload: string, onNotify: () => void): Promise<() => void> {
    await this.connection();
    const key = `${channel}:${payload}`;
    const set = this.waiters.get(key) ?? new Set<Waiter>();
    this.waiters.set(key, set);
    const waiter: Waiter = () => onNotify();
    set.add(waiter);
    return () => {
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    };
  }
}

/** How long a revocation heard is remembered (for a long-poll whose token was checked just before it listened). */
const REVOKED_MEMORY_MS = 10 * 60_000;

/**
 * packrat_desired and packrat_jobs carry an agent id (or a job id); packrat_agent_token_revoked carries the id of an
 * agent token just revoked, so a long-poll held open with it ends at once on every replica.
 */
export const CHANNELS = ["packrat_desired", "packrat_jobs", "packrat_agent_token_revoked"] as const;
export type Channel = (typeof CHANNELS)[number];

const globalForHub = globalThis as unknown as { packratNotifyHub?: NotifyHub };
export function notifyHub(): NotifyHub {
  globalForHub.packratNotifyHub ??= new NotifyHub();
  return globalForHub.packratNotifyHub;
}
