// `npm run bench -- heartbeats`: N simulated agents against the control plane as it runs in production (the web
// process npm start runs, scripts/serve.ts: the agent front and Next's handler over the production build, one process
// per replica), N growing, then the largest N against three replicas. Each
// agent registers through the real /register route with an enrollment token, gets one deployment, then behaves like
// apps/agent/src/attached: a lease heartbeat every 5 s, one event when its deployment starts serving, its metrics
// every 15 s (eight HDR histograms merged over the interval, counters, one instance), a desired-state long-poll and
// a jobs long-poll held open all the time. PostgreSQL is a dedicated embedded cluster, so its CPU and statistics are
// this load's alone. The run stops after the first step that saturates (heartbeats-verdict.ts).
import { randomUUID } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, getPriority, loadavg, setPriority, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import pg from "pg";
import type { DeploymentMetrics, MetricsRequest, RegisterRequest } from "@packrat/contracts/agent-protocol";
import { INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS, LatencyHistogram } from "@packrat/core/stats/histogram";
import { startEmbeddedPostgres, removeCluster } from "../src/server/db/embedded-postgres";
import { migrate } from "../src/server/db/migrator";
import { summarize } from "./sample-stats";
import { simulatorRequest, type SimulatorResponse } from "./simulator-http";
import {
  brokenBy,
  extrapolateCapacity,
  HOLD_LIMIT,
  projectedMachineBusy,
  saturated,
  type HeartbeatStep,
} from "./heartbeats-verdict";
import type { Benchmark, BenchFigure } from "./types";
import { testEnv } from "../test/test-env";
import { build, buildNeeded } from "../scripts/lib/build";

const INTERVAL_MS = 5000;
/** The tag of bench/event-loop-probe.ts's lines (each replica loads it with --import). */
const EVENT_LOOP_PROBE_TAG = "packratEventLoopProbe";
/** A replica second whose event loop was held this long (or more) counts as a stall. */
const STALL_MS = 50;
const METRICS_INTERVAL_MS = 15_000;
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ

let registerRetries = 0;

interface Window {
  start: number;
  end: number;
  heartbeats: Tally;
  metrics: Tally;
  events: Tally;
  /** Long-polls answered (any status). */
  polls: number;
  inFlight: number;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/** Busy and total jiffies of the whole machine (/proc/stat), to show how much of it others used meanwhile. */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

/** CPU seconds of a process and all its descendants (live ones, plus the children each has reaped). */
function processTreeCpuSeconds(rootPid: number): number {
  const stats = new Map<number, { ppid: number; own: number; reaped: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // After "pid (comm) ": state ppid … utime(12th) stime(13th) cutime(14th) cstime(15th), 0-based from state.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    stats.set(Number(entry), {
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    });
  }
  let ticks = 0;
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === rootPid) return true;
      p = stats.get(p)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, s] of stats) if (inTree(pid)) ticks += s.own + s.reaped;
  return ticks / CLOCK_TICKS_PER_S;
}

const STAT_COLUMNS = [
  "xact_commit",
  "xact_rollback",
  "tup_returned",
  "tup_fetched",
  "tup_inserted",
  "tup_updated",
  "tup_deleted",
  "blks_read",
  "blks_hit",
] as const;
type DbStats = Record<
  | (typeof STAT_COLUMNS)[number]
  | "wal_bytes"
  | "wal_fpi"
  | "db_bytes"
  | "heartbeat_rows"
  | "agent_updates"
  | "agent_hot_updates",
  number
>;

async function dbStats(client: pg.Client, database: string): Promise<DbStats> {
  // Stats reach pg_stat_database when a backend flushes them (≤ 1 s under load); the windows are 30 s.
  const row = (
    await client.query(
      `SELECT ${STAT_COLUMNS.join(", ")}, pg_database_size($1) AS db_bytes FROM pg_stat_database WHERE datname = $1`,
      [database],
    )
  ).rows[0];
  const wal = (await client.query("SELECT wal_bytes, wal_fpi FROM pg_stat_wal")).rows[0];
  // The lease renewal's row: an update that stays on its page (HOT) logs only what changed, one that moves logs
  // the whole row and an entry in each of the table's indexes.
  const agentTable = (
    await client.query(
      "SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'agent'",
    )
  ).rows[0];
  const heartbeats = (await client.query("SELECT count(*)::bigint AS n FROM agent_heartbeat")).rows[0];
  return Object.fromEntries([
    ...STAT_COLUMNS.map((c) => [c, Number(row[c])]),
    ["wal_bytes", Number(wal.wal_bytes)],
    ["wal_fpi", Number(wal.wal_fpi)],
    ["agent_updates", Number(agentTable?.updates ?? 0)],
    ["agent_hot_updates", Number(agentTable?.hot ?? 0)],
    ["db_bytes", Number(row.db_bytes)],
    ["heartbeat_rows", Number(heartbeats.n)],
  ]) as DbStats;
}

interface StatementRow {
  query: string;
  calls: number;
  meanMs: number;
  totalMs: number;
  rows: number;
  walBytes: number;
}

/** Statements this database ran since the last reset (the benchmark's own monitoring queries left out). */
async function statementStats(
  client: pg.Client,
  database: string,
): Promise<{ calls: number; totalMs: number; all: StatementRow[] }> {
  const rows = (
    await client.query(
      `SELECT query, calls::bigint AS calls, total_exec_time AS total, mean_exec_time AS mean, rows::bigint AS rows,
              wal_bytes::bigint AS wal
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
        AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_database_size%' AND query NOT ILIKE '%count(*)::bigint AS n FROM agent_heartbeat%'
      ORDER BY total_exec_time DESC`,
      [database],
    )
  ).rows as Array<{ query: string; calls: string; total: number; mean: number; rows: string; wal: string }>;
  return {
    calls: rows.reduce((sum, r) => sum + Number(r.calls), 0),
    totalMs: rows.reduce((sum, r) => sum + r.total, 0),
    all: rows.map((r) => ({
      query: r.query.replace(/\s+/g, " ").replace(/\|/g, "/"),
      calls: Number(r.calls),
      meanMs: r.mean,
      totalMs: r.total,
      rows: Number(r.rows),
      walBytes: Number(r.wal),
    })),
  };
}

/** The statements a heartbeat request runs: one, the token check and lease renewal together (its once-a-minute
 *  last-used stamp inside it); the other requests' token lookups are theirs, not the heartbeat's. */
function heartbeatShare(all: readonly StatementRow[], heartbeats: number): { statements: number; walBytes: number } {
  const own = all.filter((r) => /^\s*WITH input AS \(/.test(r.query));
  const sum = (key: "calls" | "walBytes") => own.reduce((n, r) => n + r[key], 0);
  return {
    statements: heartbeats > 0 ? sum("calls") / heartbeats : 0,
    walBytes: heartbeats > 0 ? sum("walBytes") / heartbeats : 0,
  };
}

/** Resident memory of a process and its descendants, in bytes. */
function processTreeRssBytes(rootPid: number): number {
  let bytes = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      if (Number(entry) !== rootPid && ppid !== rootPid) continue;
      bytes += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      continue;
    }
  }
  return bytes;
}

/** One replica: scripts/serve.ts over the production build (.next), as `npm start` runs it. */
async function startReplica(
  env: NodeJS.ProcessEnv,
  onError: (line: string) => void,
  root = resolve("."),
): Promise<ControlPlane> {
  const port = await freePort();
  const profile = testEnv.HEARTBEATS_BENCH_CPU_PROFILE_DIR;
  const probes: EventLoopSecond[] = [];
  const child = spawn(
    process.execPath,
    [
      ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []),
      "--import",
      "tsx",
      "--import",
      resolve(import.meta.dirname, "event-loop-probe.ts"),
      join(root, "scripts/serve.ts"),
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...env, PORT: String(port), HOST: "127.0.0.1", PACKRAT_PUBLIC_URL: `http://127.0.0.1:${port}` },
    },
  );
  let partial = "";
  const echo = (data: Buffer) => {
    const lines = (partial + data.toString()).split("\n");
    partial = lines.pop() ?? "";
    // Its JSON log lines: errors are echoed (a benchmark that hides server errors measures nothing).
    for (const line of lines) {
      if (line.includes('"level":"error"')) onError(line.slice(0, 2000));
      else if (line.startsWith(`{"${EVENT_LOOP_PROBE_TAG}"`))
        probes.push((JSON.parse(line) as Record<string, EventLoopSecond>)[EVENT_LOOP_PROBE_TAG]!);
    }
  };
  child.stdout!.on("data", echo);
  child.stderr!.on("data", echo);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the web process (serve.ts) exited (${child.exitCode})`);
    try {
      const health = await fetch(`${url}/api/health`);
      await health.arrayBuffer();
      if (health.status < 500) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error("the web process (serve.ts) did not answer /api/health within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, probes };
}

/** One second of a replica's event loop (bench/event-loop-probe.ts). */
interface EventLoopSecond {
  at: number;
  maxMs: number;
  p99Ms: number;
  meanMs: number;
}

interface ControlPlane {
  url: string;
  child: ChildProcess;
  probes: EventLoopSecond[];
}

async function stopReplica(replica: ControlPlane): Promise<void> {
  if (replica.child.exitCode !== null) return;
  await new Promise<void>((done) => {
    const timer = setTimeout(() => {
      replica.child.kill("SIGKILL");
      done();
    }, 15_000);
    replica.child.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    replica.child.kill("SIGTERM");
  });
}

/** Eight histograms of ~1500 requests each (six per-stage, busy and time in system): one metrics interval's, merged on
 *  the agent (pre-encoded: the client is cheap). */
function histogramSet(seed: number): DeploymentMetrics["histograms"] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const stage = (meanMs: number) => {
    const h = LatencyHistogram.create(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS); // the agent's interval precision
    for (let i = 0; i < 1500; i++) h.recordMs(-Math.log(1 - random()) * meanMs);
    return h.encode();
  };
  return {
    deserialize: stage(0.05),
    queue: stage(0.5),
    formation: stage(1),
    busy: stage(1.5),
    compute: stage(8),
    system: stage(9.5),
    serialize: stage(0.05),
    total: stage(10),
  };
}

/** Requests of one kind answered in a window: count, failures, latencies. */
interface Tally {
  sent: number;
  failed: number;
  latencies: number[];
  statuses: Map<string, number>;
}
const tally = (): Tally => ({ sent: 0, failed: 0, latencies: [], statuses: new Map() });

class SimulatedAgent {
  readonly bootId = randomUUID();
  token = "";
  agentId = "";
  deploymentId = "";
  revision = 0;
  private announced = false;
  private readonly abort = new AbortController();
  /** Ends the long-polls and the metrics: the agent then only renews its lease (the heartbeat-only phase). */
  private readonly others = new AbortController();
  private stopped = false;

  constructor(
    /** The replica it talks to (moved when replicas are added). */
    public url: string,
    private readonly histograms: DeploymentMetrics["histograms"],
    private readonly current: () => Window | undefined,
  ) {}

  /** Aborts on stop() and on leaseOnly(): the long-polls' and the metrics' signal, made once. */
  private readonly othersSignal = AbortSignal.any([this.abort.signal, this.others.signal]);
  /** Bodies encoded once (the simulator's CPU is the machine's too): the metrics never change, the heartbeat's
   *  only with the revision. */
  private metricsBody?: string;
  private heartbeatBody?: { revision: number; text: string };

  private call(method: string, path: string, body?: unknown, signal = this.abort.signal): Promise<SimulatorResponse> {
    return simulatorRequest(`${this.url}/api/agent/v1${path}`, {
      method,
      signal,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
  }

  private heartbeat(): string {
    if (this.heartbeatBody?.revision !== this.revision)
      this.heartbeatBody = {
        revision: this.revision,
        text: JSON.stringify({ bootId: this.bootId, revision: this.revision }),
      };
    return this.heartbeatBody.text;
  }

  async register(enrollmentToken: string, index: number): Promise<void> {
    const cores = Array.from({ length: 8 }, (_, cpu) => ({ socket: 0, node: 0, coreId: cpu, cpus: [cpu] }));
    const request: RegisterRequest = {
      protocolVersion: 1,
      agentVersion: "bench",
      hostName: `sim-agent-${index}`,
      bootId: this.bootId,
      topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores }] }] },
      allowedCpus: [0, 1, 2, 3, 4, 5, 6, 7],
      cpuModel: "simulated",
      memoryBytes: 32 * 1024 ** 3,
      ortVersion: "1.30.0",
      inferenceUrl: `http://sim-agent-${index}.invalid:8000`,
    };
    this.token = enrollmentToken;
    let response = await this.call("POST", "/register", request);
    // Like the real agent: a 5xx is retried with a growing, jittered pause (ten times here), a 4xx is final.
    for (let retry = 0; retry < 10 && response.status >= 500; retry++) {
      await response.arrayBuffer();
      registerRetries++;
      await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** retry) * (0.5 + Math.random() / 2)));
      response = await this.call("POST", "/register", request);
    }
    if (!response.ok) throw new Error(`register: ${response.status} ${await response.text()}`);
    const registered = (await response.json()) as { agentId: string; agentToken?: string };
    this.agentId = registered.agentId;
    this.token = registered.agentToken!;
  }

  start(): void {
    void this.every(INTERVAL_MS, "heartbeats", () => this.call("POST", "/heartbeat", this.heartbeat()));
    void this.every(METRICS_INTERVAL_MS, "metrics", () =>
      this.call("POST", "/metrics", (this.metricsBody ??= JSON.stringify(this.metrics())), this.othersSignal),
    );
    void this.longPoll(
      () => `/desired?after=${this.revision}`,
      async (response) => {
        if (response.status !== 200) return void (await response.arrayBuffer());
        this.revision = ((await response.json()) as { revision: number }).revision;
        // Its deployment serves: one event, as the agent sends when a generation is applied.
        if (!this.announced) {
          this.announced = true;
          await this.timed("events", () =>
            this.call("POST", "/events", {
              bootId: this.bootId,
              deployments: [{ deploymentId: this.deploymentId, observedGeneration: 1, state: "serving" }],
            }),
          );
        }
      },
    );
    void this.longPoll(
      () => "/jobs/next",
      async (response) => {
        await response.arrayBuffer();
      },
    );
  }

  private async longPoll(path: () => string, handle: (response: SimulatorResponse) => Promise<void>): Promise<void> {
    while (!this.stopped && !this.others.signal.aborted) {
      try {
        const response = await this.call("GET", path(), undefined, this.othersSignal);
        const window = this.current();
        if (window) window.polls++;
        await handle(response);
      } catch {
        if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private metrics(): MetricsRequest {
    const intervalMs = METRICS_INTERVAL_MS;
    return {
      bootId: this.bootId,
      host: { cpuBusyFraction: 0.42, memoryUsedBytes: 9 * 1024 ** 3 },
      servingProcessRestarts: 0,
      deployments: [
        {
          deploymentId: this.deploymentId,
          intervalMs,
          requests: { completed: 1500, rejected: 0, withinSlo: 1491 },
          rows: { completed: 1500, rejected: 0 },
          histograms: this.histograms,
          busyMs: 6300,
          queueDepthRows: 3,
          instances: [{ id: 0, threads: 4, batch: 8, state: "ready", cpus: [0, 1, 2, 3], affinityOk: true }],
          affinityOk: true,
        },
      ],
    };
  }

  /** One request, counted in the window it was sent in. */
  private async timed(
    kind: "heartbeats" | "metrics" | "events",
    send: () => Promise<SimulatorResponse>,
  ): Promise<void> {
    const sentAt = performance.now();
    const window = this.current();
    const counted = window && sentAt >= window.start && sentAt < window.end ? window : undefined;
    if (counted) {
      counted[kind].sent++;
      counted.inFlight++;
    }
    let status = "error";
    try {
      const response = await send();
      await response.arrayBuffer();
      status = String(response.status);
    } catch (error) {
      status = this.stopped ? "stopped" : (error as Error).name;
    }
    if (counted) {
      counted.inFlight--;
      counted[kind].statuses.set(status, (counted[kind].statuses.get(status) ?? 0) + 1);
      if (status === "200") counted[kind].latencies.push(performance.now() - sentAt);
      else counted[kind].failed++;
    }
  }

  private async every(
    intervalMs: number,
    kind: "heartbeats" | "metrics",
    send: () => Promise<SimulatorResponse>,
  ): Promise<void> {
    // A random phase, as agents started at different times have; then fixed ticks every interval.
    let next = performance.now() + Math.random() * intervalMs;
    while (!this.stopped) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      if (this.stopped) return;
      next += intervalMs;
      if (kind === "metrics" && this.others.signal.aborted) return;
      await this.timed(kind, send);
      if (performance.now() > next) next = performance.now(); // fell behind: send the next one at once, not a burst
    }
  }

  leaseOnly(): void {
    this.others.abort();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}

type StepResult = HeartbeatStep & {
  replicas: number;
  /** Which control-plane code served the step (HEARTBEATS_BENCH_AB: "baseline" or "this tree"). */
  variant?: string;
  /** The simulator's own event-loop delay over the window (it adds to every latency it measures). */
  clientLoop: { p99Ms: number; maxMs: number };
  /** The replicas' event loops over the window, from their one-second probes: the worst second's max, the mean of
   *  the seconds' p99, and how many replica-seconds had a delay over STALL_MS. */
  serverLoop: { maxMs: number; meanP99Ms: number; stallSeconds: number; seconds: number };
  /** Measured with heartbeats only (no long-polls, no metrics). */
  leaseOnly?: boolean;
  maxMs: number;
  clientCpu: number;
  machineBusy: number;
  othersCpu: number;
  loadAverage: number;
  rssMb: number;
  broken: string[];
  statuses: Record<string, number>;
  fiveHundreds: number;
  metricsP99Ms: number;
  metricsSent: number;
  polls: number;
  top: StatementRow[];
  db: Record<string, number>;
};

const bench: Benchmark = {
  name: "heartbeats",
  description:
    "N simulated agents (lease heartbeat every 5 s, metrics every 15 s, two long-polls each) against the control plane as it runs in production (serve.ts: agent front + Next; 1, then 3 replicas) and PostgreSQL on this machine: heartbeat latency and cost as N grows",
  async run({ quick }) {
    // HEARTBEATS_BENCH_NICE=-5 (root only) lets this run, and the PostgreSQL and control plane it starts (children
    // inherit it), go before other work on a shared machine; the notes say when it was used.
    const nice = testEnv.HEARTBEATS_BENCH_NICE ? Number(testEnv.HEARTBEATS_BENCH_NICE) : undefined;
    if (nice !== undefined) {
      if (!Number.isInteger(nice) || nice < -20 || nice > 19)
        throw new RangeError(
          `HEARTBEATS_BENCH_NICE must be an integer in [-20, 19], got ${testEnv.HEARTBEATS_BENCH_NICE}`,
        );
      setPriority(0, nice);
    }
    const root = resolve(import.meta.dirname, "..");
    const needed = buildNeeded(root);
    if (needed) {
      console.log(`  building the control plane's production build (${needed})`);
      if (!build(root)) throw new Error("next build failed");
    }
    // HEARTBEATS_BENCH_STEPS=200,1000 replaces the steps (a shorter run, e.g. to profile one).
    const steps = testEnv.HEARTBEATS_BENCH_STEPS
      ? testEnv.HEARTBEATS_BENCH_STEPS.split(",").map(Number)
      : quick
        ? [50, 200]
        : [100, 200, 400, 700, 1000, 2000, 3000, 4000, 5000];
    const warmupMs = quick ? 10_000 : 20_000;
    // HEARTBEATS_BENCH_WINDOW_S shortens (or lengthens) the measured windows.
    const measureMs = testEnv.HEARTBEATS_BENCH_WINDOW_S
      ? Number(testEnv.HEARTBEATS_BENCH_WINDOW_S) * 1000
      : quick
        ? 15_000
        : 30_000;
    // HEARTBEATS_BENCH_AB=DIR: after the ladder, instead of the 3-replica and heartbeats-only steps, the largest step
    // alternates between the control plane checked out (and built) in DIR and this tree's, 1 and 3 replicas each,
    // HEARTBEATS_BENCH_AB_ROUNDS rounds (default 2): an interleaved comparison of two versions under the same load.
    const abBaseline = testEnv.HEARTBEATS_BENCH_AB ? resolve(testEnv.HEARTBEATS_BENCH_AB) : undefined;
    const abRounds = Number(testEnv.HEARTBEATS_BENCH_AB_ROUNDS ?? 2);
    const work = mkdtempSync(join(tmpdir(), "packrat-bench-heartbeats-"));
    chmodSync(work, 0o755);
    // pg_stat_statements counts the statements each step runs: it must be preloaded, so set it and restart once.
    const pgOptions = { dataDir: join(work, "pg"), port: await freePort() };
    const first = await startEmbeddedPostgres(pgOptions);
    const setup = new pg.Client({ connectionString: first.url("postgres") });
    await setup.connect();
    await setup.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await setup.query("ALTER SYSTEM SET max_connections = 200");
    await setup.end();
    await first.stop();
    const server = await startEmbeddedPostgres(pgOptions);
    const admin = new pg.Client({ connectionString: server.url("postgres") });
    await admin.connect();
    const database = "packrat_bench_heartbeats";
    await admin.query(`CREATE DATABASE ${database}`);
    const databaseUrl = server.url(database);
    await migrate(databaseUrl, resolve("prisma/migrations"));
    const extension = new pg.Client({ connectionString: databaseUrl });
    await extension.connect();
    await extension.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await extension.end();
    Object.assign(testEnv, { DATABASE_URL: databaseUrl, PACKRAT_DATA_DIR: join(work, "data") });
    const { resetEnvForTests } = await import("../src/server/env");
    resetEnvForTests();
    const { db } = await import("../src/server/db/client");
    const { insertTestUser } = await import("../src/server/auth/test-support");
    const { createEnrollmentToken } = await import("../src/server/services/enrollment-tokens-service");
    const { deployModel } = await import("../src/server/services/deployments-service");
    const { insertModelVersion } = await import("../test/control-plane-harness");
    const { buildTinyCnn } = await import("@packrat/modelzoo/tiny-models");

    const agents: SimulatedAgent[] = [];
    const replicas: ControlPlane[] = [];
    const stats = new pg.Client({ connectionString: databaseUrl });
    const replicaEnv: NodeJS.ProcessEnv = {
      ...testEnv,
      DATABASE_URL: databaseUrl,
      PACKRAT_DATA_DIR: join(work, "data"),
      HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
      METRICS_INTERVAL_MS: String(METRICS_INTERVAL_MS),
      BETTER_AUTH_SECRET: randomUUID() + randomUUID(),
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      // HEARTBEATS_BENCH_CPU_PROFILE_DIR: each replica writes a V8 CPU profile there when it stops.
    };
    const serverErrors: string[] = [];
    const onError = (line: string) => {
      if (serverErrors.length < 20) console.error(`  control plane: ${line}`);
      serverErrors.push(line);
    };
    try {
      const prisma = db();
      const user = await insertTestUser(prisma, "admin");
      const caller = { user, requestId: "bench-heartbeats" };
      const enrollment = await createEnrollmentToken(caller, { name: "bench" });
      const version = await insertModelVersion(
        join(work, "data"),
        "tiny-cnn",
        buildTinyCnn({ seed: 1, producerVersion: "bench" }),
      );
      await stats.connect();
      replicas.push(await startReplica(replicaEnv, onError));

      let growthNote: string | undefined;
      const histogramVariants = Array.from({ length: 8 }, (_, i) => histogramSet(i + 1));
      let window: Window | undefined;
      const results: StepResult[] = [];
      const machineCpus = cpus().length;
      const clientLoop = monitorEventLoopDelay({ resolution: 5 });
      clientLoop.enable();
      const controlPlaneCpu = () => replicas.reduce((sum, r) => sum + processTreeCpuSeconds(r.child.pid!), 0);

      const measure = async (target: number): Promise<StepResult> => {
        const before = {
          machine: machineJiffies(),
          cp: controlPlaneCpu(),
          pgCpu: processTreeCpuSeconds(server.pid),
          client: process.cpuUsage(),
          db: await dbStats(stats, database),
          at: performance.now(),
        };
        await stats.query("SELECT pg_stat_statements_reset()");
        clientLoop.reset();
        const startWall = Date.now();
        window = {
          start: performance.now(),
          end: performance.now() + measureMs,
          heartbeats: tally(),
          metrics: tally(),
          events: tally(),
          polls: 0,
          inFlight: 0,
        };
        await new Promise((r) => setTimeout(r, measureMs));
        const measured = window;
        for (let i = 0; i < 100 && measured.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 100)); // the window's last answers
        const after = {
          machine: machineJiffies(),
          load: loadavg()[0]!,
          cp: controlPlaneCpu(),
          pgCpu: processTreeCpuSeconds(server.pid),
          client: process.cpuUsage(before.client),
          db: await dbStats(stats, database),
          at: performance.now(),
        };
        window = undefined;
        const clientLoopMs = { p99Ms: clientLoop.percentile(99) / 1e6, maxMs: clientLoop.max / 1e6 };
        // A probe line at t covers the second before t.
        const endWall = Date.now();
        const loopSeconds = replicas.flatMap((r) =>
          r.probes.filter((p) => p.at >= startWall + 1000 && p.at <= endWall),
        );
        const serverLoop = {
          maxMs: loopSeconds.reduce((m, p) => Math.max(m, p.maxMs), 0),
          meanP99Ms: loopSeconds.reduce((sum, p) => sum + p.p99Ms, 0) / Math.max(1, loopSeconds.length),
          stallSeconds: loopSeconds.filter((p) => p.maxMs >= STALL_MS).length,
          seconds: loopSeconds.length,
        };
        const statements = await statementStats(stats, database);
        const seconds = (after.at - before.at) / 1000;
        const hb = measured.heartbeats;
        const ok = hb.latencies.length;
        const latency = ok ? summarize(hb.latencies) : undefined;
        const metricsLatency = measured.metrics.latencies.length ? summarize(measured.metrics.latencies) : undefined;
        const delta = Object.fromEntries(
          Object.keys(after.db).map((k) => [k, after.db[k as keyof DbStats] - before.db[k as keyof DbStats]]),
        );
        const perHeartbeat = (value: number) => (ok ? value / ok : 0);
        const own = heartbeatShare(statements.all, ok);
        const step: HeartbeatStep = {
          agents: target,
          intendedPerS: target / (INTERVAL_MS / 1000),
          achievedPerS: ok / (measureMs / 1000),
          sent: hb.sent,
          failed: hb.failed,
          p50Ms: latency?.p50 ?? 0,
          p99Ms: latency?.p99 ?? 0,
          // Summed over the replicas: per replica, divide by their number.
          controlPlaneCpu: (after.cp - before.cp) / seconds,
          postgresCpu: (after.pgCpu - before.pgCpu) / seconds,
          machineCpus,
        };
        const machineBusy =
          (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total);
        const clientCpu = (after.client.user + after.client.system) / 1e6 / seconds;
        const statuses: Record<string, number> = {};
        for (const kind of ["heartbeats", "metrics", "events"] as const)
          for (const [status, n] of measured[kind].statuses) statuses[`${kind} ${status}`] = n;
        const fiveHundreds = Object.entries(statuses)
          .filter(([k]) => / 5\d\d$/.test(k))
          .reduce((n, [, v]) => n + v, 0);
        const broken = brokenBy({ ...step, controlPlaneCpu: step.controlPlaneCpu / replicas.length });
        return {
          ...step,
          replicas: replicas.length,
          clientLoop: clientLoopMs,
          serverLoop,
          maxMs: latency?.max ?? 0,
          machineBusy,
          loadAverage: after.load,
          // Cores the rest of the machine (other people's work) used meanwhile.
          othersCpu: Math.max(0, machineBusy * machineCpus - step.controlPlaneCpu - step.postgresCpu - clientCpu),
          clientCpu,
          rssMb: replicas.reduce((sum, r) => sum + processTreeRssBytes(r.child.pid!), 0) / 1024 ** 2,
          broken,
          statuses,
          fiveHundreds,
          metricsP99Ms: metricsLatency?.p99 ?? 0,
          metricsSent: measured.metrics.sent,
          polls: measured.polls,
          top: statements.all.slice(0, 10),
          db: {
            commitsPerHeartbeat: perHeartbeat(delta.xact_commit!),
            rollbacks: delta.xact_rollback!,
            tuplesWrittenPerHeartbeat: perHeartbeat(delta.tup_inserted! + delta.tup_updated! + delta.tup_deleted!),
            tuplesFetchedPerHeartbeat: perHeartbeat(delta.tup_fetched!),
            statementsPerHeartbeat: perHeartbeat(statements.calls),
            statementMsPerHeartbeat: perHeartbeat(statements.totalMs),
            walBytesPerHeartbeat: perHeartbeat(delta.wal_bytes!),
            fullPageImagesPerHeartbeat: perHeartbeat(delta.wal_fpi!),
            agentHotUpdateShare: delta.agent_updates! > 0 ? delta.agent_hot_updates! / delta.agent_updates! : 0,
            heartbeatStatements: own.statements,
            heartbeatWalBytes: own.walBytes,
            dbGrowthBytesPerS: delta.db_bytes! / seconds,
          },
        };
      };
      const report = (r: StepResult) =>
        console.log(
          `  N=${r.agents}, ${r.replicas} replica(s): ${r.achievedPerS.toFixed(1)}/${r.intendedPerS.toFixed(1)} heartbeats/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, control plane ${(r.controlPlaneCpu * 100).toFixed(0)}% of a core (${((r.controlPlaneCpu * 1000) / Math.max(r.achievedPerS, 1e-9)).toFixed(2)} ms/heartbeat), PostgreSQL ${r.postgresCpu.toFixed(2)} cores, ${r.db.heartbeatStatements!.toFixed(2)} statements and ${(r.db.heartbeatWalBytes! / 1024).toFixed(2)} KiB WAL per heartbeat request, ${(r.db.walBytesPerHeartbeat! / 1024).toFixed(2)} KiB WAL and ${r.db.fullPageImagesPerHeartbeat!.toFixed(3)} full-page images per heartbeat (all work), agent updates ${(r.db.agentHotUpdateShare! * 100).toFixed(0)}% HOT, machine ${(r.machineBusy * 100).toFixed(0)}% busy; event loop: simulator p99 ${r.clientLoop.p99Ms.toFixed(1)} ms, max ${r.clientLoop.maxMs.toFixed(0)} ms; replicas max ${r.serverLoop.maxMs.toFixed(0)} ms, ${r.serverLoop.stallSeconds}/${r.serverLoop.seconds} seconds with a stall ≥ ${STALL_MS} ms${r.variant ? ` [${r.variant}]` : ""}${r.broken.length ? ` — BROKEN: ${r.broken.join("; ")}` : ""}`,
        );

      let holdNote: string | undefined;
      for (const target of steps) {
        // As many as this machine can hold: a step projected (from the last one's CPU per heartbeat) to need more
        // than HOLD_LIMIT of the machine is not run; past it the capacity is extrapolated.
        const last = results.at(-1);
        const projected = last ? projectedMachineBusy({ ...last, machineCpus }, target, INTERVAL_MS) : 0;
        if (projected > HOLD_LIMIT) {
          holdNote = `Not measured: ${target} agents and more. From ${last!.agents} agents' measured CPU per heartbeat (control plane ${round((last!.controlPlaneCpu * 1000) / last!.achievedPerS)} ms, PostgreSQL ${round((last!.postgresCpu * 1000) / last!.achievedPerS)} ms, simulated agents ${round((last!.clientCpu * 1000) / last!.achievedPerS)} ms) and the other processes' ${round(last!.othersCpu * 100)}% of a core, ${target} agents would keep this ${machineCpus}-CPU machine ${round(projected * 100)}% busy, past the ${HOLD_LIMIT * 100}% it can hold with the simulator, PostgreSQL and the control plane sharing it; the capacity past that is extrapolated below.`;
          console.log(`  ${holdNote}`);
          break;
        }
        // Grow to N: register through the route and deploy, eight at a time.
        const registerStart = performance.now();
        let growthFailed: string | undefined;
        while (agents.length < target && !growthFailed) {
          const batch = Array.from(
            { length: Math.min(8, target - agents.length) },
            () => new SimulatedAgent(replicas[0]!.url, histogramVariants[agents.length % 8]!, () => window),
          );
          const grown = await Promise.allSettled(
            batch.map(async (agent, i) => {
              await agent.register(enrollment.token, agents.length + i);
              for (let retry = 0; ; retry++) {
                try {
                  agent.deploymentId = (
                    await deployModel(caller, {
                      agentId: agent.agentId,
                      modelVersionId: version.id,
                      cpus: [0, 1, 2, 3],
                    })
                  ).id;
                  break;
                } catch (error) {
                  if (retry >= 5) throw error;
                  await new Promise((r) => setTimeout(r, 1000));
                }
              }
            }),
          );
          batch.forEach((agent, i) => {
            if (grown[i]!.status === "rejected") {
              growthFailed = String((grown[i] as PromiseRejectedResult).reason);
              return;
            }
            agents.push(agent);
            agent.start();
          });
        }
        // A control plane that cannot register more agents (its registrations fail past their retries) is full:
        // the run measures what it has and goes on to the replicas.
        if (growthFailed) {
          growthNote = `Growing to ${target} agents stopped at ${agents.length}: ${growthFailed.slice(0, 300)}`;
          console.log(`  ${growthNote}`);
          if (results.length === 0 && agents.length > 0) {
            // Nothing measured yet: the agents it has are the step (the note says where growth stopped).
            await new Promise((r) => setTimeout(r, warmupMs));
            const reached = await measure(agents.length);
            results.push(reached);
            report(reached);
          }
          break;
        }
        console.log(
          `  ${target} agents registered and deployed in ${((performance.now() - registerStart) / 1000).toFixed(1)} s (${registerRetries} registrations retried so far); warming up`,
        );
        await new Promise((r) => setTimeout(r, warmupMs));
        const result = await measure(target);
        results.push(result);
        report(result);
        // Slow is recorded and the curve goes on; lost or far-behind heartbeats end the run (bounded time).
        if (saturated(result)) break;
      }

      // The same agents over three replicas (round-robin, as a load balancer spreads them).
      if (results.length === 0) throw new Error(growthNote ?? "no step measured");
      const single = results.filter((r) => r.replicas === 1);
      const largestHealthySingle = single.filter((r) => r.broken.length === 0).at(-1);
      const threeAt = largestHealthySingle?.agents ?? single.at(-1)!.agents;
      while (agents.length > threeAt) agents.pop()!.stop();
      if (abBaseline) {
        // A/B: the same agents against the baseline's replicas and this tree's, 1 then 3 of them, alternating
        // which goes first each round; each variant starts fresh (its background work included) and is warmed up.
        const variants = [
          { name: "baseline", root: abBaseline },
          { name: "this tree", root: resolve(".") },
        ];
        for (let round = 0; round < abRounds; round++) {
          for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
            for (const count of [1, 3]) {
              const fresh: ControlPlane[] = [];
              for (let i = 0; i < count; i++) fresh.push(await startReplica(replicaEnv, onError, variant.root));
              agents.forEach((agent, i) => (agent.url = fresh[i % fresh.length]!.url));
              for (const replica of replicas.splice(0, replicas.length, ...fresh)) await stopReplica(replica);
              console.log(`  A/B round ${round + 1}: ${threeAt} agents on ${count} replica(s) of ${variant.name}`);
              await new Promise((r) => setTimeout(r, warmupMs + (count > 1 ? 10_000 : 0)));
              const step = { ...(await measure(threeAt)), variant: variant.name };
              results.push(step);
              report(step);
            }
          }
        }
      }
      if (!abBaseline) {
        replicas.push(await startReplica(replicaEnv, onError), await startReplica(replicaEnv, onError));
        agents.forEach((agent, i) => (agent.url = replicas[i % replicas.length]!.url));
        console.log(`  ${threeAt} agents spread over 3 replicas; warming up (long-polls move over within their hold)`);
        await new Promise((r) => setTimeout(r, warmupMs + 25_000));
        const three = await measure(threeAt);
        results.push(three);
        report(three);

        // What a heartbeat alone costs: the same agents on one replica, their long-polls and metrics stopped.
        for (const replica of replicas.splice(1)) await stopReplica(replica);
        for (const agent of agents) {
          agent.url = replicas[0]!.url;
          agent.leaseOnly();
        }
        console.log(`  ${threeAt} agents on one replica, heartbeats only; warming up`);
        await new Promise((r) => setTimeout(r, warmupMs));
        const leaseOnly = { ...(await measure(threeAt)), leaseOnly: true };
        results.push(leaseOnly);
        report(leaseOnly);
      }

      const baseline = results[0]!;
      const healthy = single.filter((r) => r.broken.length === 0);
      const largestHealthy = healthy.at(-1);
      const capacity = largestHealthy ? extrapolateCapacity(largestHealthy, INTERVAL_MS) : undefined;
      const firstBroken = single.find((r) => r.broken.length > 0);
      const largest = results.reduce((m, r) => (r.agents >= m.agents ? r : m), results[0]!);
      const at = (r: StepResult) =>
        `${r.agents} agents, ${r.replicas} replica${r.replicas > 1 ? "s" : ""}${r.leaseOnly ? ", heartbeats only" : ""}${r.variant ? `, ${r.variant}` : ""}`;
      const figures: BenchFigure[] = results.flatMap((r) => [
        { label: `heartbeat p50, ${at(r)}`, value: round(r.p50Ms), unit: "ms", samples: r.sent - r.failed },
        { label: `heartbeat p99, ${at(r)}`, value: round(r.p99Ms), unit: "ms", samples: r.sent - r.failed },
        {
          label: `heartbeats answered per second, ${at(r)} (intended ${r.intendedPerS})`,
          value: round(r.achievedPerS),
          unit: "/s",
        },
        { label: `responses 5xx (heartbeats, metrics, events), ${at(r)}`, value: r.fiveHundreds, unit: "" },
        { label: `metrics message p99, ${at(r)}`, value: round(r.metricsP99Ms), unit: "ms", samples: r.metricsSent },
        {
          label: `control-plane CPU, ${at(r)} (serve.ts, all replicas)`,
          value: round(r.controlPlaneCpu * 100),
          unit: "% of a core",
        },
        { label: `PostgreSQL CPU, ${at(r)}`, value: round(r.postgresCpu * 100), unit: "% of a core" },
        {
          label: `control-plane CPU per heartbeat, ${at(r)} (serve.ts: agent front + Next; all its work — metrics, events, long-polls, background jobs — divided by heartbeats)`,
          value: round((r.controlPlaneCpu * 1000) / Math.max(r.achievedPerS, 1e-9)),
          unit: "ms",
        },
        {
          label: `PostgreSQL CPU per heartbeat, ${at(r)}`,
          value: round((r.postgresCpu * 1000) / Math.max(r.achievedPerS, 1e-9)),
          unit: "ms",
        },
        {
          label: `statements per heartbeat request (its share of one grouped statement: token checks, last-used stamps, lease renewals of the heartbeats that came together), ${at(r)}`,
          value: round(r.db.heartbeatStatements!),
          unit: "",
        },
        {
          label: `WAL per heartbeat request (its statements' WAL), ${at(r)}`,
          value: round(r.db.heartbeatWalBytes! / 1024),
          unit: "KiB",
        },
        {
          label: `statements per heartbeat (incl. metrics, events, long-polls), ${at(r)}`,
          value: round(r.db.statementsPerHeartbeat!),
          unit: "",
        },
        {
          label: `WAL per heartbeat (all WAL, incl. metrics and long-polls), ${at(r)}`,
          value: round(r.db.walBytesPerHeartbeat! / 1024),
          unit: "KiB",
        },
        {
          label: `transactions committed per heartbeat (incl. metrics, events, long-polls), ${at(r)}`,
          value: round(r.db.commitsPerHeartbeat!),
          unit: "",
        },
      ]);
      if (largestHealthy)
        figures.push({
          label: "agents per control plane at a 5 s heartbeat, measured (largest healthy step, one serve.ts replica)",
          value: largestHealthy.agents,
          unit: "agents",
        });
      if (capacity) {
        figures.push(
          {
            label: `sustainable heartbeats/s, control plane (one serve.ts process, 90% of a core; extrapolated from ${largestHealthy!.agents} agents)`,
            value: round(capacity.controlPlanePerS),
            unit: "/s",
          },
          {
            label: `sustainable heartbeats/s, PostgreSQL (90% of ${machineCpus} CPUs; extrapolated from ${largestHealthy!.agents} agents)`,
            value: round(capacity.postgresPerS),
            unit: "/s",
          },
          {
            label:
              "agents per control plane at a 5 s heartbeat (extrapolated from measured CPU per heartbeat, this machine)",
            value: capacity.agents,
            unit: "agents",
          },
        );
      }
      const table = {
        title:
          "Per step (measured window; 'per heartbeat' divides the database's or control plane's totals — metrics, events and long-polls included — by heartbeats answered; 'hb request' counts only what a heartbeat request itself runs)",
        columns: [
          "agents",
          "replicas",
          "intended/s",
          "answered/s",
          "p50 ms",
          "p99 ms",
          "max ms",
          "failed",
          "5xx",
          "metrics p99 ms",
          "simulator loop p99 ms",
          "simulator loop max ms",
          "replica loop max ms",
          `replica-seconds with a stall ≥ ${STALL_MS} ms`,
          "CP CPU %",
          "CP ms/hb",
          "PG CPU %",
          "client CPU %",
          "others' CPU %",
          "load avg",
          "CP RSS MiB",
          "statements/hb request",
          "WAL KiB/hb request",
          "statements/hb",
          "commits/hb",
          "rows written/hb",
          "WAL KiB/hb",
          "full-page images/hb",
          "agent row updates on their page (HOT) %",
          "DB growth KiB/s",
          "verdict",
        ],
        rows: results.map((r) => [
          r.agents,
          r.leaseOnly ? `${r.replicas} (heartbeats only)` : r.variant ? `${r.replicas} (${r.variant})` : r.replicas,
          r.intendedPerS,
          round(r.achievedPerS),
          round(r.p50Ms),
          round(r.p99Ms),
          round(r.maxMs),
          r.failed,
          r.fiveHundreds,
          round(r.metricsP99Ms),
          round(r.clientLoop.p99Ms),
          round(r.clientLoop.maxMs),
          round(r.serverLoop.maxMs),
          `${r.serverLoop.stallSeconds}/${r.serverLoop.seconds}`,
          round(r.controlPlaneCpu * 100),
          round((r.controlPlaneCpu * 1000) / Math.max(r.achievedPerS, 1e-9)),
          round(r.postgresCpu * 100),
          round(r.clientCpu * 100),
          round(r.othersCpu * 100),
          round(r.loadAverage),
          round(r.rssMb),
          round(r.db.heartbeatStatements!),
          round(r.db.heartbeatWalBytes! / 1024),
          round(r.db.statementsPerHeartbeat!),
          round(r.db.commitsPerHeartbeat!),
          round(r.db.tuplesWrittenPerHeartbeat!),
          round(r.db.walBytesPerHeartbeat! / 1024),
          round(r.db.fullPageImagesPerHeartbeat ?? 0),
          round((r.db.agentHotUpdateShare ?? 0) * 100),
          round(r.db.dbGrowthBytesPerS! / 1024),
          r.broken.length ? r.broken.join("; ") : "ok",
        ]),
      };
      const niceNote = `Scheduling priority of the benchmark, its PostgreSQL and its control plane: nice ${getPriority(0)}${nice !== undefined && nice < 0 ? " (raised above other work on this shared machine, which otherwise swamps the latency)" : ""}.`;
      const othersMean = results.reduce((sum, r) => sum + r.othersCpu, 0) / results.length;
      const notes = [
        "The control plane is the production web process as `npm start` runs it: scripts/serve.ts, the agent front (src/server/agent-api/agent-front.ts, the agent API's route handlers without Next's router) and Next's request handler over the production build for everything else, one process per replica, the job runner and alert evaluator running in each (Next's instrumentation), as in production; not a test harness.",
        niceNote,
        `Other work on this machine used ${round(othersMean * 100)}% of a core on average during the measured windows (column "others' CPU %"): latency includes waiting for a CPU behind it, while CPU per heartbeat (and so the extrapolated capacity) is much less sensitive to it.`,
        `One machine (${machineCpus} logical CPUs) runs the simulated agents, the control plane and PostgreSQL: they compete for the same cores, so the absolute numbers are a floor for a real deployment where each has its own. At the larger steps the simulated agents themselves (column "client CPU %") take a large share of the two cores.`,
        "Each simulated agent has one deployment. Its heartbeat is a lease renewal (boot id and applied revision: one statement that verifies the token, stamps its last use at most once a minute and renews the lease, shared by the heartbeats a replica received while its previous one ran, on the replica's lease connection); every 15 s it sends its metrics (eight HDR histograms of ~1500 requests, merged on the agent; the control plane inserts the minute's rollup row as it comes and merges only into a row that exists), and one event when its deployment starts serving. Each also holds a desired-state and a jobs long-poll (25 s hold), as the real agent does.",
        "Statements and WAL per heartbeat request come from pg_stat_statements: the heartbeats' grouped statement (token checks, last-used stamps and lease renewals), per heartbeat answered, so below 1 when heartbeats share a statement; the other requests' token lookups are theirs. The WAL of commit records is not attributed to statements; the 'WAL KiB/hb' column is all WAL written in the window divided by heartbeats.",
        ...results
          .filter((r) => r.fiveHundreds > 0)
          .map(
            (r) =>
              `5xx at ${at(r)}: ${Object.entries(r.statuses)
                .filter(([k]) => / 5\d\d$/.test(k))
                .map(([k, n]) => `${n} × ${k}`)
                .join(", ")}.`,
          ),
        `Registration (not measured): ${registerRetries} /register calls answered 5xx and were retried, as the real agent retries them.`,
        `Windows: ${warmupMs / 1000} s warm-up after growing to N (25 s more after adding replicas), then ${measureMs / 1000} s measured; latency from the heartbeat's send to the last byte of the answer; the smallest step is the ${baseline.agents}-agent one.`,
        firstBroken
          ? `First to break (one replica): at ${firstBroken.agents} agents (${firstBroken.intendedPerS} heartbeats/s intended): ${firstBroken.broken.join("; ")}.`
          : `No one-replica step broke a limit (p99 ≤ 1 s, ≤ 1% failed, ≥ 95% answered, CPU ≤ 90%) up to ${single.at(-1)!.agents} agents.`,
        `Heartbeats only: the last row has the same agents on one replica with their long-polls and metrics stopped, so the control plane's CPU per heartbeat there is what a lease renewal costs (with the replica's background work: job runner, alert evaluator over ${threeAt} deployments).`,
        `Three replicas were measured at ${threeAt} agents (the largest healthy one-replica step), spread round-robin; on this 2-core machine the three share the same cores, so they show the per-replica cost, not more capacity.`,
        ...(growthNote ? [growthNote] : []),
        ...(holdNote ? [holdNote] : []),
        `Largest N measured: ${largest.agents} agents; ${serverErrors.length} error lines in the control plane's log over the run.`,
        ...(capacity
          ? [
              `Extrapolated (not measured) from ${largestHealthy!.agents} agents' measured CPU per heartbeat: the ${capacity.bottleneck} runs out first, at about ${capacity.agents} agents per control-plane process (${round(Math.min(capacity.controlPlanePerS, capacity.postgresPerS))} heartbeats/s) with the database on this machine's 2 cores.`,
            ]
          : []),
      ];
      const last = single.at(-1)!;
      const topTable = {
        title: `Statements by total execution time at ${last.agents} agents, one replica (pg_stat_statements over the window; calls per heartbeat answered)`,
        columns: ["statement", "calls", "calls/hb", "mean ms", "total ms", "rows", "WAL bytes/call"],
        rows: last.top.map((t) => [
          t.query.slice(0, 140),
          t.calls,
          round(t.calls / Math.max(1, last.achievedPerS * (measureMs / 1000))),
          round(t.meanMs),
          round(t.totalMs),
          t.rows,
          round(t.walBytes / Math.max(1, t.calls)),
        ]),
      };
      return { figures, tables: [table, topTable], notes };
    } finally {
      for (const agent of agents) agent.stop();
      for (const replica of replicas) await stopReplica(replica);
      await stats.end().catch(() => {});
      const { db } = await import("../src/server/db/client");
      await db()
        .$disconnect()
        .catch(() => {});
      await admin.end().catch(() => {});
      await server.stop();
      removeCluster(server.dataDir);
      if (existsSync(work)) rmSync(work, { recursive: true, force: true });
    }
  },
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export default bench;
