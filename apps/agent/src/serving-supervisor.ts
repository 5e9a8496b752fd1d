// Keeps the serving process alive: forks it, restarts it when it dies (counting restarts and the gap until the new
// one is ready), and on shutdown asks it to drain before exiting. It also owns the agent's listening socket for the
// agent's whole life: each accepted connection is handed, unread, to the ready serving process over IPC; while none
// is ready (starting, restarting) connections wait here (held-connections.ts), so a restart is a wait, not a refusal.
import { fork, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { loadAgentEnv, type AgentEnv } from "./env";
import { HeldConnections } from "./held-connections";
import { answerAndClose } from "./raw-http-response";
import type { ServingToSupervisor, SupervisorToServing } from "./serving-process";
import { tsExecArgv } from "./ts-exec-argv";

export interface SupervisorOptions {
  configPath: string;
  env: Record<string, string | undefined>;
  log: (level: string, msg: string, extra?: Record<string, unknown>) => void;
  /** Give up when the serving process fails to start this many times in a row. */
  maxConsecutiveStartFailures?: number;
}

/** Hand-overs not yet taken by the serving process at once (each takes ~0.3 ms; 64 is ~20 ms of them). */
const MAX_IN_TRANSIT = 64;

export class ServingSupervisor {
  private child?: ChildProcess;
  /** The current serving process said it is ready: connections go to it. */
  private ready = false;
  private stopping = false;
  private gaveUp = false;
  private server?: Server;
  private grpcServer?: Server;
  private readonly held: HeldConnections;
  /** gRPC connections (from AGENT_GRPC_PORT) wait in a queue of their own: they are refused differently. */
  private readonly grpcHeld: HeldConnections;
  private readonly grpcSockets = new WeakSet<Socket>();
  /** Sockets handed to the current serving process that it has not said it took yet, by hand-over id. */
  private inTransit = new Map<number, Socket>();
  private nextHandOverId = 0;
  restarts = 0;
  private consecutiveFailures = 0;
  private diedAt?: number;
  private heldAtDeath = 0;
  lastRestartGapMs?: number;
  /** Connections that waited during the last restart. */
  lastRestartHeldConnections?: number;
  /** The port the agent listens on (known once listening; AGENT_PORT=0 picks a free one, kept across restarts). */
  port?: number;
  /** The gRPC port, when AGENT_GRPC_PORT is set (known once listening). */
  grpcPort?: number;
  onReady?: () => void;
  onGiveUp?: (reason: string) => void;
  onApplied?: (result: Extract<ServingToSupervisor, { kind: "applied" }>) => void;
  private collectWaiters = new Map<number, (report: Extract<ServingToSupervisor, { kind: "report" }>) => void>();
  private nextCollectId = 0;

  /** The agent's variables, validated once: the listener's address and the held queue's bounds. */
  private readonly env: AgentEnv;

  constructor(private options: SupervisorOptions) {
    const env = (this.env = loadAgentEnv(options.env));
    const bounds = {
      max: env.AGENT_HELD_CONNECTIONS_MAX,
      timeoutMs: env.AGENT_HELD_CONNECTIONS_TIMEOUT_MS,
      reason: () =>
        this.stopping || this.gaveUp
          ? "the agent is shutting down"
          : "the serving process is starting or restarting; retry",
    };
    this.held = new HeldConnections(bounds);
    this.grpcHeld = new HeldConnections({ ...bounds, refuse: (socket) => socket.destroy() });
  }

  get servingPid(): number | undefined {
    return this.child?.pid;
  }
  /** Whether a serving process takes connections now. */
  get serving(): boolean {
    return this.ready;
  }
  get heldConnections(): { waiting: number; held: number; shed: number } {
    return { waiting: this.waiting, held: this.heldTotal, shed: this.shedTotal };
  }
  private get waiting(): number {
    return this.held.size + this.grpcHeld.size;
  }
  private get heldTotal(): number {
    return this.held.held + this.grpcHeld.held;
  }
  private get shedTotal(): number {
    return this.held.shed + this.grpcHeld.shed;
  }
  private queueOf(socket: Socket): HeldConnections {
    return this.grpcSockets.has(socket) ? this.grpcHeld : this.held;
  }

  /** Listens on AGENT_HOST:AGENT_PORT, then starts the serving process. */
  start(): void {
    const env = this.env;
    // pauseOnConnect: nothing is read here, so the serving process gets each connection's bytes untouched.
    // noDelay: http.createServer sets it on the connections it accepts itself; the serving process only receives
    // these, so Nagle is turned off here (else a response's last segment may wait for an ACK, up to 40 ms).
    const server = createServer({ pauseOnConnect: true, noDelay: true }, (socket) => this.accept(socket));
    this.server = server;
    let listening = false;
    server.on("error", (error: NodeJS.ErrnoException) => {
      if (listening) {
        this.options.log("warn", "accepting a connection failed", { error: error.message });
        return;
      }
      this.options.log("error", "cannot listen", { host: env.AGENT_HOST, port: env.AGENT_PORT, error: error.message });
      this.giveUp(`cannot listen on ${env.AGENT_HOST}:${env.AGENT_PORT}: ${error.message}`);
    });
    const grpcListening =
      env.AGENT_GRPC_PORT === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const grpc = createServer({ pauseOnConnect: true, noDelay: true }, (socket) => {
              this.grpcSockets.add(socket);
              this.accept(socket);
            });
            this.grpcServer = grpc;
            let up = false;
            grpc.on("error", (error: NodeJS.ErrnoException) => {
              if (up) {
                this.options.log("warn", "accepting a gRPC connection failed", { error: error.message });
                return;
              }
              this.options.log("error", "cannot listen (gRPC)", {
                host: env.AGENT_HOST,
                port: env.AGENT_GRPC_PORT,
                error: error.message,
              });
              this.giveUp(`cannot listen on ${env.AGENT_HOST}:${env.AGENT_GRPC_PORT} (gRPC): ${error.message}`);
            });
            grpc.listen(env.AGENT_GRPC_PORT, env.AGENT_HOST, () => {
              up = true;
              this.grpcPort = (grpc.address() as AddressInfo).port;
              this.options.log("info", "listening (gRPC)", { host: env.AGENT_HOST, port: this.grpcPort });
              resolve();
            });
          });
    server.listen(env.AGENT_PORT, env.AGENT_HOST, () => {
      listening = true;
      this.port = (server.address() as AddressInfo).port;
      this.options.log("info", "listening", { host: env.AGENT_HOST, port: this.port });
      void grpcListening.then(() => {
        if (!this.gaveUp) this.spawn();
      });
    });
  }

  private accept(socket: Socket): void {
    socket.on("error", () => {}); // a client that resets while its connection waits here is nobody's error
    this.route(socket);
  }

  /**
   * keepOpen: this process keeps its copy of the socket, unread, until the serving process says it took it ("took",
   * sent before it reads a byte). A serving process that dies before saying so never had the connection: the socket
   * waits, whole, for the next one. One that said so owns it, and the copy here is closed.
   */
  private handOver(child: ChildProcess, socket: Socket): void {
    const inTransit = this.inTransit;
    const id = ++this.nextHandOverId;
    inTransit.set(id, socket);
    const message: SupervisorToServing = this.grpcSockets.has(socket)
      ? { kind: "connection", id, protocol: "grpc" }
      : { kind: "connection", id };
    child.send(message, socket, { keepOpen: true }, (error) => {
      if (!error) return; // written: "took" (or "returned", or the process's exit) settles it
      if (!inTransit.delete(id)) return; // already taken back when the process exited
      // A failed write means the process is going: stop handing it more, keep this one for the next.
      if (this.child === child) this.ready = false;
      this.route(socket, true);
    });
  }

  /** The serving process took hand-over `id` (close our copy) or gave it back (keep it for the next process). */
  private settleHandOver(inTransit: Map<number, Socket>, id: number, took: boolean): void {
    const socket = inTransit.get(id);
    if (!socket) return;
    inTransit.delete(id);
    if (took)
      socket.destroy(); // the serving process has it (this closes only our descriptor)
    // Given back (a process that was not ready for it; the supervisor hands over only to ready ones): first in line.
    else this.queueOf(socket).hold(socket, true);
    this.handOverWaiting();
  }

  /**
   * Hand-overs queue inside Node, beyond the held queue's bounds; past MAX_IN_TRANSIT (a serving process slow to
   * acknowledge, a flood of new connections) a connection waits in the held queue instead, bounded and timed.
   */
  private route(socket: Socket, front = false): void {
    if (this.ready && this.child?.connected && this.inTransit.size < MAX_IN_TRANSIT) this.handOver(this.child, socket);
    else if (this.stopping || this.gaveUp) {
      if (this.grpcSockets.has(socket)) socket.destroy();
      else answerAndClose(socket, 503, "the agent is shutting down", { "retry-after": "1" });
    } else this.queueOf(socket).hold(socket, front);
  }

  /** After a hand-over completes, the next waiting connection goes (oldest first). */
  private handOverWaiting(): void {
    while (this.ready && this.child?.connected && this.inTransit.size < MAX_IN_TRANSIT) {
      const socket = this.held.takeOne() ?? this.grpcHeld.takeOne();
      if (!socket) return;
      this.handOver(this.child, socket);
    }
  }

  private spawn(): void {
    const script = fileURLToPath(new URL("./serving-process.ts", import.meta.url));
    const child = fork(script, [this.options.configPath], {
      execArgv: tsExecArgv(),
      env: this.options.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    this.inTransit = new Map();
    const inTransit = this.inTransit;
    let exited = false;
    /** Once the process has exited AND its IPC channel is drained (every "took" it sent has been read), the
     *  hand-overs it never took go to the next process (or are answered, when stopping). */
    const rerouteUntaken = (force = false) => {
      if (!exited || (child.connected && !force)) return;
      const untaken = [...inTransit.values()];
      inTransit.clear();
      for (const socket of untaken.reverse()) this.route(socket, true);
    };
    child.on("disconnect", () => rerouteUntaken());
    child.on("message", (message: ServingToSupervisor) => {
      if (message.kind === "ready") {
        this.consecutiveFailures = 0;
        if (this.diedAt !== undefined) {
          this.lastRestartGapMs = performance.now() - this.diedAt;
          this.lastRestartHeldConnections = this.heldTotal - this.heldAtDeath;
          this.options.log("info", "serving process back", {
            restarts: this.restarts,
            gapMs: Math.round(this.lastRestartGapMs),
            heldConnections: this.lastRestartHeldConnections,
            waiting: this.waiting,
            shedConnections: this.shedTotal,
          });
          this.diedAt = undefined;
        }
        const stats: SupervisorToServing = {
          kind: "restart-stats",
          restarts: this.restarts,
          lastRestartGapMs: this.lastRestartGapMs,
          lastRestartHeldConnections: this.lastRestartHeldConnections,
          heldConnections: this.heldTotal,
          shedConnections: this.shedTotal,
        };
        child.send(stats);
        this.ready = true;
        this.handOverWaiting();
        this.onReady?.();
      } else if (message.kind === "report") {
        this.collectWaiters.get(message.requestId)?.(message);
        this.collectWaiters.delete(message.requestId);
      } else if (message.kind === "applied") {
        this.onApplied?.(message);
      } else if (message.kind === "failed") {
        this.consecutiveFailures++;
      } else if (message.kind === "took" || message.kind === "returned") {
        this.settleHandOver(inTransit, message.id, message.kind === "took");
      }
    });
    child.on("exit", (code, signal) => {
      if (this.child === child) this.ready = false;
      exited = true;
      rerouteUntaken();
      // A channel still open after its process exited (a descendant holding it) must not keep those connections.
      if (child.connected) setTimeout(() => rerouteUntaken(true), 1_000).unref();
      if (this.stopping) return;
      if (this.diedAt === undefined) {
        this.diedAt = performance.now();
        this.heldAtDeath = this.heldTotal;
      }
      const limit = this.options.maxConsecutiveStartFailures ?? 3;
      if (this.consecutiveFailures >= limit) {
        this.options.log("error", "serving process keeps failing to start; giving up", {
          failures: this.consecutiveFailures,
        });
        this.giveUp(`serving process failed to start ${this.consecutiveFailures} times`);
        return;
      }
      this.restarts++;
      this.options.log("warn", "serving process died; restarting", {
        code,
        signal,
        restarts: this.restarts,
        waiting: this.waiting,
      });
      setTimeout(
        () => {
          if (!this.stopping) this.spawn();
        },
        Math.min(2000, 100 * 2 ** this.consecutiveFailures),
      );
    });
  }

  /** No serving process will come: stop listening (so clients are refused again) and answer those waiting. */
  private giveUp(reason: string): void {
    this.gaveUp = true;
    this.closeListener();
    this.onGiveUp?.(reason);
  }

  private closeListener(): void {
    this.server?.close();
    this.grpcServer?.close();
    this.held.shedAll();
    this.grpcHeld.shedAll();
  }

  /** Hands a new serving configuration (a new generation) to the running serving process. */
  apply(config: unknown): boolean {
    if (!this.child?.connected) return false;
    const message: SupervisorToServing = { kind: "apply", config };
    this.child.send(message);
    return true;
  }

  /** The serving process's per-model report since the last one (undefined if it is not running or too slow). */
  collect(timeoutMs: number): Promise<Extract<ServingToSupervisor, { kind: "report" }> | undefined> {
    if (!this.child?.connected) return Promise.resolve(undefined);
    const requestId = ++this.nextCollectId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.collectWaiters.delete(requestId);
        resolve(undefined);
      }, timeoutMs);
      this.collectWaiters.set(requestId, (report) => {
        clearTimeout(timer);
        resolve(report);
      });
      const message: SupervisorToServing = { kind: "collect", requestId };
      this.child!.send(message);
    });
  }

  get running(): boolean {
    return !!this.child?.connected;
  }

  /**
   * SIGTERM to the serving process (it drains), then wait for it. The listener stays open while it drains, so new
   * connections still reach it and are told 503 "not ready" (what a load balancer should see); it closes once the
   * process is gone.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    if (!this.ready) {
      this.held.shedAll();
      this.grpcHeld.shedAll();
    } // nothing will serve those waiting
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve();
        }, timeoutMs);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      });
    }
    this.closeListener();
  }
}
