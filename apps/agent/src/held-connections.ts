// Connections the supervisor accepted while no serving process is ready (starting, restarting): they wait here,
// paused (nothing read), until one is. Bounded, so an outage cannot hold file descriptors without limit and a
// client learns to retry instead of running into its own timeout: beyond `max` waiting, or after `timeoutMs`, a
// connection is answered 503 + Retry-After and closed (an answer, not a reset: nothing was read, so it is safe to
// retry, and the client can tell "restarting" from a crash).
import type { Socket } from "node:net";
import { answerAndClose } from "./raw-http-response";

export interface HeldConnectionsOptions {
  max: number;
  timeoutMs: number;
  /** The 503's message (why nothing serves right now). */
  reason: () => string;
  /** How a connection is turned away; default: an HTTP/1.1 503 + Retry-After, then close. (gRPC: closed, which its
   *  clients see as UNAVAILABLE, a retryable status, since an HTTP/1.1 answer means nothing to an HTTP/2 client.) */
  refuse?: (socket: Socket, reason: string) => void;
}

interface Entry {
  socket: Socket;
  deadline: number;
  timer: NodeJS.Timeout;
}

export class HeldConnections {
  private entries: Entry[] = [];
  private readonly since = new WeakMap<Socket, number>();
  /** Connections that waited here (each counted once), and those answered 503 instead. */
  held = 0;
  shed = 0;

  constructor(private readonly options: HeldConnectionsOptions) {}

  get size(): number {
    return this.entries.length;
  }

  /**
   * Holds a paused socket. `front`: one that was handed to a serving process which died before it took it; it keeps
   * its place (first in line) and its original deadline.
   */
  hold(socket: Socket, front = false): void {
    if (socket.destroyed) return;
    const first = !this.since.has(socket);
    if (first) this.since.set(socket, performance.now());
    if (this.entries.length >= this.options.max) {
      this.shedOne(socket);
      return;
    }
    if (first) this.held++;
    const deadline = this.since.get(socket)! + this.options.timeoutMs;
    const entry: Entry = {
      socket,
      deadline,
      timer: setTimeout(
        () => {
          this.entries = this.entries.filter((e) => e !== entry);
          this.shedOne(socket);
        },
        Math.max(0, deadline - performance.now()),
      ),
    };
    if (front) this.entries.unshift(entry);
    else this.entries.push(entry);
  }

  /** The first waiting socket (it stops waiting here), or undefined when none waits. */
  takeOne(): Socket | undefined {
    while (this.entries.length > 0) {
      const entry = this.entries.shift()!;
      clearTimeout(entry.timer);
      if (!entry.socket.destroyed) return entry.socket;
    }
    return undefined;
  }

  /** Every waiting socket, oldest first; none is held any more. */
  takeAll(): Socket[] {
    const sockets = this.entries.map((e) => {
      clearTimeout(e.timer);
      return e.socket;
    });
    this.entries = [];
    return sockets.filter((s) => !s.destroyed);
  }

  /** Answers every waiting socket 503 (shutting down, giving up). */
  shedAll(): void {
    for (const socket of this.takeAll()) this.shedOne(socket);
  }

  private shedOne(socket: Socket): void {
    this.shed++;
    if (this.options.refuse) this.options.refuse(socket, this.options.reason());
    else answerAndClose(socket, 503, this.options.reason(), { "retry-after": "1" });
  }
}
