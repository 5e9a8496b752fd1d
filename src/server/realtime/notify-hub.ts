// PostgreSQL LISTEN/NOTIFY shared by every long-poll in this process: one dedicated connection, many waiters.
// Any control-plane replica can answer an agent because a change made on one replica NOTIFYs all of them.
import pg from "pg";
import { env } from "@/server/env";

type Waiter = (payload: string) => void;

class NotifyHub {
  private client?: pg.Client;
  private connecting?: Promise<pg.Client>;
  private waiters = new Map<string, Set<Waiter>>(); // key: `${channel}:${payload}`

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: env().DATABASE_URL });
      client.on("notification", (message) => {
        const key = `${message.channel}:${message.payload ?? ""}`;
        for (const wake of this.waiters.get(key) ?? []) wake(message.payload ?? "");
      });
      // A lost connection is replaced on the next wait; waiters time out and poll again meanwhile.
      client.on("error", () => {
        this.client = undefined;
        this.connecting = undefined;
      });
      client.on("end", () => {
        this.client = undefined;
        this.connecting = undefined;
      });
      await client.connect();
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
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
  ): Promise<{ wait: (timeoutMs: number, signal?: AbortSignal) => Promise<boolean>; cancel: () => void }> {
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
    const wait = (timeoutMs: number, signal?: AbortSignal) =>
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
