// `npm run bench -- heartbeats`: N simulated agents against one control plane on this machine, N growing. Each
// agent registers through the real /register route with an enrollment token (over real HTTP, the route handlers
// served by test/route-server.ts in a process of its own), gets one deployment, then behaves like
// apps/agent/src/attached: a heartbeat every 5 s carrying that deployment's report (eight HDR histograms,
// counters, one instance), a desired-state long-poll and a jobs long-poll held open all the time. PostgreSQL is a
// dedicated embedded cluster, so its CPU and pg_stat_database deltas are this load's alone. The baseline is the
// smallest step of the same run; the run stops after the first step that breaks a limit (heartbeats-verdict.ts).
import { randomUUID } from "node:crypto";
import { fork, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, getPriority, loadavg, setPriority, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "node:net";
import pg from "pg";
import type { HeartbeatRequest, RegisterRequest } from "@packrat/contracts/agent-protocol";
import { LatencyHistogram } from "@packrat/core/stats/histogram";
import { startEmbeddedPostgres, removeCluster } from "../src/server/db/embedded-postgres";
import { migrate } from "../src/server/db/migrator";
import { summarize } from "./sample-stats";
import { brokenBy, extrapolateCapacity, saturated, type HeartbeatStep } from "./heartbeats-verdict";
import type { Benchmark, BenchFigure } from "./types";
import { testEnv } from "../test/test-env";

const INTERVAL_MS = 5000;
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ

let registerRetries = 0;

interface Window {
  start: number;
  end: number;
  latencies: number[];
  sent: number;
  failed: number;
  statuses: Map<string, number>;
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

/** CPU seconds of the postmaster and its children (live backends, plus the children it has reaped). */
function postgresCpuSeconds(postmasterPid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After "pid (comm) ": state ppid … utime(12th) stime(13th) cutime(14th) cstime(15th), 0-based from state.
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    const own = Number(fields[11]) + Number(fields[12]);
    if (pid === postmasterPid) ticks += own + Number(fields[13]) + Number(fields[14]);
    else if (ppid === postmasterPid) ticks += own;
  }
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
type DbStats = Record<(typeof STAT_COLUMNS)[number] | "wal_bytes" | "db_bytes" | "heartbeat_rows", number>;

async function dbStats(client: pg.Client, database: string): Promise<DbStats> {
  // Stats reach pg_stat_database when a backend flushes them (≤ 1 s under load); the windows are 30 s.
  const row = (
    await client.query(
      `SELECT ${STAT_COLUMNS.join(", ")}, pg_database_size($1) AS db_bytes FROM pg_stat_database WHERE datname = $1`,
      [database],
    )
  ).rows[0];
  const wal = (await client.query("SELECT wal_bytes FROM pg_stat_wal")).rows[0];
  const heartbeats = (await client.query("SELECT count(*)::bigint AS n FROM agent_heartbeat")).rows[0];
  return Object.fromEntries([
    ...STAT_COLUMNS.map((c) => [c, Number(row[c])]),
    ["wal_bytes", Number(wal.wal_bytes)],
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
}

/** Statements this database ran since the last reset (the benchmark's own monitoring queries left out). */
async function statementStats(
  client: pg.Client,
  database: string,
): Promise<{ calls: number; totalMs: number; top: StatementRow[] }> {
  const rows = (
    await client.query(
      `SELECT query, calls::bigint AS calls, total_exec_time AS total, mean_exec_time AS mean, rows::bigint AS rows
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
        AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_database_size%' AND query NOT ILIKE '%count(*)::bigint AS n FROM agent_heartbeat%'
      ORDER BY total_exec_time DESC`,
      [database],
    )
  ).rows as Array<{ query: string; calls: string; total: number; mean: number; rows: string }>;
  return {
    calls: rows.reduce((sum, r) => sum + Number(r.calls), 0),
    totalMs: rows.reduce((sum, r) => sum + r.total, 0),
    top: rows.slice(0, 10).map((r) => ({
      query: r.query.replace(/\s+/g, " ").replace(/\|/g, "/").slice(0, 140),
      calls: Number(r.calls),
      meanMs: r.mean,
      totalMs: r.total,
      rows: Number(r.rows),
    })),
  };
}

function controlPlaneStats(
  child: ChildProcess,
): Promise<{ cpuUs: number; rssBytes: number; loopDelayP99Ms: number; loopDelayMaxMs: number }> {
  return new Promise((done) => {
    const onMessage = (message: {
      type: string;
      cpuUs: number;
      rssBytes: number;
      loopDelayP99Ms: number;
      loopDelayMaxMs: number;
    }) => {
      if (message.type !== "stats") return;
      child.off("message", onMessage);
      done(message);
    };
    child.on("message", onMessage);
    child.send({ type: "stats" });
  });
}

/** Eight histograms of ~500 requests each (six per-stage, busy and time in system), as an agent's heartbeat carries them (pre-encoded: the client is cheap). */
function histogramSet(seed: number): HeartbeatRequest["deployments"][number]["histograms"] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const stage = (meanMs: number) => {
    const h = LatencyHistogram.create();
    for (let i = 0; i < 500; i++) h.recordMs(-Math.log(1 - random()) * meanMs);
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

class SimulatedAgent {
  readonly bootId = randomUUID();
  token = "";
  agentId = "";
  deploymentId = "";
  revision = 0;
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly histograms: HeartbeatRequest["deployments"][number]["histograms"],
    private readonly current: () => Window | undefined,
  ) {}

  private call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.url}/api/agent/v1${path}`, {
      method,
      signal: this.abort.signal,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
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
    void this.heartbeatLoop();
    void this.longPoll(
      () => `/desired?after=${this.revision}`,
      async (response) => {
        if (response.status === 200) this.revision = ((await response.json()) as { revision: number }).revision;
        else await response.arrayBuffer();
      },
    );
    void this.longPoll(
      () => "/jobs/next",
      async (response) => {
        await response.arrayBuffer();
      },
    );
  }

  private async longPoll(path: () => string, handle: (response: Response) => Promise<void>): Promise<void> {
    while (!this.stopped) {
      try {
        await handle(await this.call("GET", path()));
      } catch {
        if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private heartbeat(): HeartbeatRequest {
    return {
      bootId: this.bootId,
      revision: this.revision,
      host: { cpuBusyFraction: 0.42, memoryUsedBytes: 9 * 1024 ** 3 },
      servingProcessRestarts: 0,
      deployments: [
        {
          deploymentId: this.deploymentId,
          observedGeneration: 1,
          state: "serving",
          intervalMs: INTERVAL_MS,
          requests: { completed: 500, rejected: 0, withinSlo: 497 },
          rows: { completed: 500, rejected: 0 },
          histograms: this.histograms,
          busyMs: 2100,
          queueDepthRows: 3,
          instances: [{ id: 0, threads: 4, batch: 8, state: "ready", cpus: [0, 1, 2, 3], affinityOk: true }],
          affinityOk: true,
        },
      ],
    };
  }

  private async heartbeatLoop(): Promise<void> {
    // A random phase, as agents started at different times have; then fixed ticks every interval.
    let next = performance.now() + Math.random() * INTERVAL_MS;
    while (!this.stopped) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      if (this.stopped) return;
      next += INTERVAL_MS;
      const sentAt = performance.now();
      const window = this.current();
      const counted = window && sentAt >= window.start && sentAt < window.end ? window : undefined;
      if (counted) {
        counted.sent++;
        counted.inFlight++;
      }
      let status = "error";
      try {
        const response = await this.call("POST", "/heartbeat", this.heartbeat());
        await response.arrayBuffer();
        status = String(response.status);
      } catch (error) {
        status = this.stopped ? "stopped" : (error as Error).name;
      }
      if (counted) {
        counted.inFlight--;
        counted.statuses.set(status, (counted.statuses.get(status) ?? 0) + 1);
        if (status === "200") counted.latencies.push(performance.now() - sentAt);
        else counted.failed++;
      }
      if (performance.now() > next) next = performance.now(); // fell behind: send the next one at once, not a burst
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}

const bench: Benchmark = {
  name: "heartbeats",
  description:
    "N simulated agents (heartbeat every 5 s + two long-polls each) against one control-plane process and PostgreSQL on this machine: heartbeat latency and database load as N grows",
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
    const steps = quick ? [10, 50, 200] : [10, 50, 200, 500];
    const warmupMs = quick ? 6_000 : 10_000;
    const measureMs = quick ? 15_000 : 30_000;
    const work = mkdtempSync(join(tmpdir(), "packrat-bench-heartbeats-"));
    chmodSync(work, 0o755);
    // pg_stat_statements counts the statements each step runs: it must be preloaded, so set it and restart once.
    const pgOptions = { dataDir: join(work, "pg"), port: await freePort() };
    const first = await startEmbeddedPostgres(pgOptions);
    const setup = new pg.Client({ connectionString: first.url("postgres") });
    await setup.connect();
    await setup.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
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
    let controlPlane: ChildProcess | undefined;
    const stats = new pg.Client({ connectionString: databaseUrl });
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

      controlPlane = fork(resolve("bench/heartbeats-control-plane.ts"), [], {
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "pipe", "inherit", "ipc"],
        env: {
          ...testEnv,
          DATABASE_URL: databaseUrl,
          HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
          NODE_ENV: "production",
        },
      });
      // Its JSON log lines: errors are echoed (a benchmark that hides server errors measures nothing).
      let partial = "";
      controlPlane.stdout!.on("data", (data: Buffer) => {
        const lines = (partial + data.toString()).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines)
          if (line.includes('"level":"error"')) console.error(`  control plane: ${line.slice(0, 2000)}`);
      });
      const url = await new Promise<string>((done, fail) => {
        controlPlane!.once("message", (m: { type: string; url: string }) =>
          m.type === "ready" ? done(m.url) : fail(new Error("unexpected message")),
        );
        controlPlane!.once("exit", (code) => fail(new Error(`control plane exited (${code})`)));
      });

      const histogramVariants = Array.from({ length: 8 }, (_, i) => histogramSet(i + 1));
      let window: Window | undefined;
      const results: Array<
        HeartbeatStep & {
          top: StatementRow[];
          maxMs: number;
          clientCpu: number;
          machineBusy: number;
          othersCpu: number;
          loadAverage: number;
          loopDelayP99Ms: number;
          rssMb: number;
          db: Record<string, number>;
          broken: string[];
          statuses: Record<string, number>;
        }
      > = [];
      const machineCpus = cpus().length;

      for (const target of steps) {
        // Grow to N: register through the route and deploy, eight at a time.
        const registerStart = performance.now();
        while (agents.length < target) {
          const batch = Array.from(
            { length: Math.min(8, target - agents.length) },
            () => new SimulatedAgent(url, histogramVariants[agents.length % 8]!, () => window),
          );
          await Promise.all(
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
          for (const agent of batch) {
            agents.push(agent);
            agent.start();
          }
        }
        console.log(
          `  ${target} agents registered and deployed in ${((performance.now() - registerStart) / 1000).toFixed(1)} s (${registerRetries} registrations retried so far); warming up`,
        );
        await new Promise((r) => setTimeout(r, warmupMs));

        const before = {
          machine: machineJiffies(),
          cp: await controlPlaneStats(controlPlane),
          pgCpu: postgresCpuSeconds(server.pid),
          client: process.cpuUsage(),
          db: await dbStats(stats, database),
          at: performance.now(),
        };
        await stats.query("SELECT pg_stat_statements_reset()");
        window = {
          start: performance.now(),
          end: performance.now() + measureMs,
          latencies: [],
          sent: 0,
          failed: 0,
          statuses: new Map(),
          inFlight: 0,
        };
        await new Promise((r) => setTimeout(r, measureMs));
        const measured = window;
        for (let i = 0; i < 100 && measured.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 100)); // the window's last answers
        const after = {
          machine: machineJiffies(),
          load: loadavg()[0]!,
          cp: await controlPlaneStats(controlPlane),
          pgCpu: postgresCpuSeconds(server.pid),
          client: process.cpuUsage(before.client),
          db: await dbStats(stats, database),
          at: performance.now(),
        };
        window = undefined;
        const statements = await statementStats(stats, database);

        const seconds = (after.at - before.at) / 1000;
        const ok = measured.latencies.length;
        const latency = ok ? summarize(measured.latencies) : undefined;
        const delta = Object.fromEntries(
          Object.keys(after.db).map((k) => [k, after.db[k as keyof DbStats] - before.db[k as keyof DbStats]]),
        );
        const perHeartbeat = (value: number) => (ok ? value / ok : 0);
        const step: HeartbeatStep = {
          agents: target,
          intendedPerS: target / (INTERVAL_MS / 1000),
          achievedPerS: ok / (measureMs / 1000),
          sent: measured.sent,
          failed: measured.failed,
          p50Ms: latency?.p50 ?? 0,
          p99Ms: latency?.p99 ?? 0,
          controlPlaneCpu: (after.cp.cpuUs - before.cp.cpuUs) / 1e6 / seconds,
          postgresCpu: (after.pgCpu - before.pgCpu) / seconds,
          machineCpus,
        };
        const broken = brokenBy(step);
        const machineBusy =
          (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total);
        const clientCpu = (after.client.user + after.client.system) / 1e6 / seconds;
        results.push({
          ...step,
          maxMs: latency?.max ?? 0,
          machineBusy,
          loadAverage: after.load,
          // Cores the rest of the machine (other people's work) used meanwhile.
          othersCpu: Math.max(0, machineBusy * machineCpus - step.controlPlaneCpu - step.postgresCpu - clientCpu),
          clientCpu,
          loopDelayP99Ms: after.cp.loopDelayP99Ms,
          rssMb: after.cp.rssBytes / 1024 ** 2,
          broken,
          statuses: Object.fromEntries(measured.statuses),
          top: statements.top,
          db: {
            commitsPerHeartbeat: perHeartbeat(delta.xact_commit!),
            rollbacks: delta.xact_rollback!,
            tuplesWrittenPerHeartbeat: perHeartbeat(delta.tup_inserted! + delta.tup_updated! + delta.tup_deleted!),
            tuplesFetchedPerHeartbeat: perHeartbeat(delta.tup_fetched!),
            blocksPerHeartbeat: perHeartbeat(delta.blks_hit! + delta.blks_read!),
            statementsPerHeartbeat: perHeartbeat(statements.calls),
            statementMsPerHeartbeat: perHeartbeat(statements.totalMs),
            walBytesPerHeartbeat: perHeartbeat(delta.wal_bytes!),
            dbGrowthBytesPerS: delta.db_bytes! / seconds,
            heartbeatRows: after.db.heartbeat_rows,
          },
        });
        console.log(
          `  N=${target}: ${step.achievedPerS.toFixed(1)}/${step.intendedPerS.toFixed(1)} heartbeats/s, p50 ${step.p50Ms.toFixed(1)} ms, p99 ${step.p99Ms.toFixed(1)} ms, control plane ${(step.controlPlaneCpu * 100).toFixed(0)}% of a core, PostgreSQL ${step.postgresCpu.toFixed(2)} cores, machine ${(machineBusy * 100).toFixed(0)}% busy (load ${after.load.toFixed(1)})${broken.length ? ` — BROKEN: ${broken.join("; ")}` : ""}`,
        );
        // Slow is recorded and the curve goes on; lost or far-behind heartbeats end the run (bounded time).
        if (saturated(step)) break;
      }

      const baseline = results[0]!;
      const healthy = results.filter((r) => r.broken.length === 0);
      const largestHealthy = healthy.at(-1);
      const capacity = largestHealthy ? extrapolateCapacity(largestHealthy, INTERVAL_MS) : undefined;
      const firstBroken = results.find((r) => r.broken.length > 0);
      const figures: BenchFigure[] = results.flatMap((r) => [
        { label: `heartbeat p50, ${r.agents} agents`, value: round(r.p50Ms), unit: "ms", samples: r.sent - r.failed },
        { label: `heartbeat p99, ${r.agents} agents`, value: round(r.p99Ms), unit: "ms", samples: r.sent - r.failed },
        {
          label: `heartbeat p99 / p99 at ${baseline.agents} agents (baseline), ${r.agents} agents`,
          value: round(r.p99Ms / baseline.p99Ms),
          unit: "×",
        },
        {
          label: `heartbeats answered per second, ${r.agents} agents (intended ${r.intendedPerS})`,
          value: round(r.achievedPerS),
          unit: "/s",
        },
        { label: `control-plane CPU, ${r.agents} agents`, value: round(r.controlPlaneCpu * 100), unit: "% of a core" },
        { label: `PostgreSQL CPU, ${r.agents} agents`, value: round(r.postgresCpu * 100), unit: "% of a core" },
        {
          label: `control-plane CPU per heartbeat, ${r.agents} agents`,
          value: round((r.controlPlaneCpu * 1000) / Math.max(r.achievedPerS, 1e-9)),
          unit: "ms",
        },
        {
          label: `PostgreSQL CPU per heartbeat, ${r.agents} agents`,
          value: round((r.postgresCpu * 1000) / Math.max(r.achievedPerS, 1e-9)),
          unit: "ms",
        },
        {
          label: `statements per heartbeat (incl. long-polls), ${r.agents} agents`,
          value: round(r.db.statementsPerHeartbeat!),
          unit: "",
        },
        {
          label: `database execution time per heartbeat (incl. long-polls), ${r.agents} agents`,
          value: round(r.db.statementMsPerHeartbeat!),
          unit: "ms",
        },
        {
          label: `transactions committed per heartbeat (incl. long-polls), ${r.agents} agents`,
          value: round(r.db.commitsPerHeartbeat!),
          unit: "",
        },
        {
          label: `rows written per heartbeat, ${r.agents} agents`,
          value: round(r.db.tuplesWrittenPerHeartbeat!),
          unit: "",
        },
        {
          label: `WAL per heartbeat, ${r.agents} agents`,
          value: round(r.db.walBytesPerHeartbeat! / 1024),
          unit: "KiB",
        },
      ]);
      if (capacity) {
        figures.push(
          {
            label: `sustainable heartbeats/s, control plane (one process, 90% of a core; from ${largestHealthy!.agents} agents)`,
            value: round(capacity.controlPlanePerS),
            unit: "/s",
          },
          {
            label: `sustainable heartbeats/s, PostgreSQL (90% of ${machineCpus} CPUs; from ${largestHealthy!.agents} agents)`,
            value: round(capacity.postgresPerS),
            unit: "/s",
          },
          {
            label: "agents per control plane at a 5 s heartbeat (extrapolated, this machine)",
            value: capacity.agents,
            unit: "agents",
          },
        );
      }
      const table = {
        title:
          "Per step (measured window; 'per heartbeat' divides the database's totals, long-polls included, by heartbeats answered)",
        columns: [
          "agents",
          "intended/s",
          "answered/s",
          "p50 ms",
          "p99 ms",
          "max ms",
          "failed",
          "CP CPU %",
          "PG CPU %",
          "client CPU %",
          "others' CPU %",
          "load avg",
          "CP loop delay p99 ms",
          "statements/hb",
          "DB time ms/hb",
          "commits/hb",
          "rows written/hb",
          "rows fetched/hb",
          "WAL KiB/hb",
          "DB growth KiB/s",
          "verdict",
        ],
        rows: results.map((r) => [
          r.agents,
          r.intendedPerS,
          round(r.achievedPerS),
          round(r.p50Ms),
          round(r.p99Ms),
          round(r.maxMs),
          r.failed,
          round(r.controlPlaneCpu * 100),
          round(r.postgresCpu * 100),
          round(r.clientCpu * 100),
          round(r.othersCpu * 100),
          round(r.loadAverage),
          round(r.loopDelayP99Ms),
          round(r.db.statementsPerHeartbeat!),
          round(r.db.statementMsPerHeartbeat!),
          round(r.db.commitsPerHeartbeat!),
          round(r.db.tuplesWrittenPerHeartbeat!),
          round(r.db.tuplesFetchedPerHeartbeat!),
          round(r.db.walBytesPerHeartbeat! / 1024),
          round(r.db.dbGrowthBytesPerS! / 1024),
          r.broken.length ? r.broken.join("; ") : "ok",
        ]),
      };
      const niceNote = `Scheduling priority of the benchmark, its PostgreSQL and its control plane: nice ${getPriority(0)}${nice !== undefined && nice < 0 ? " (raised above other work on this shared machine, which otherwise swamps the latency)" : ""}.`;
      const othersMean = results.reduce((sum, r) => sum + r.othersCpu, 0) / results.length;
      const notes = [
        niceNote,
        `Other work on this machine used ${round(othersMean * 100)}% of a core on average during the measured windows (column "others' CPU %"; 1-minute load average up to ${round(Math.max(...results.map((r) => r.loadAverage)))}): latency includes waiting for a CPU behind it, while CPU per heartbeat (and so the extrapolated capacity) is much less sensitive to it.`,
        `One machine (${machineCpus} logical CPUs) runs the simulated agents, the control-plane process and PostgreSQL: they compete for the same cores, so the absolute numbers are a floor for a real deployment where each has its own.`,
        `Each simulated agent has one deployment; its heartbeat carries eight HDR histograms (~500 requests each: six stages, busy time and time in system) that the control plane decodes, merges into the minute's rollup row and re-encodes, plus a raw agent_heartbeat row (kept an hour). Each also holds a desired-state and a jobs long-poll (25 s hold), as the real agent does.`,
        `Registration (not measured): ${registerRetries} /register calls answered 5xx and were retried, as the real agent retries them.`,
        `Windows: ${warmupMs / 1000} s warm-up after growing to N, then ${measureMs / 1000} s measured; latency from the heartbeat's send to the last byte of the answer; the baseline is the ${baseline.agents}-agent step.`,
        firstBroken
          ? `First to break: at ${firstBroken.agents} agents (${firstBroken.intendedPerS} heartbeats/s intended): ${firstBroken.broken.join("; ")}.`
          : `No step broke a limit (p99 ≤ 1 s, ≤ 1% failed, ≥ 95% answered, CPU ≤ 90%) up to ${results.at(-1)!.agents} agents.`,
        ...(capacity
          ? [
              `Extrapolated from ${largestHealthy!.agents} agents: the ${capacity.bottleneck} runs out first, at about ${capacity.agents} agents per control-plane process (${round(Math.min(capacity.controlPlanePerS, capacity.postgresPerS))} heartbeats/s).`,
            ]
          : []),
      ];
      // Where the database's time goes at the largest step measured (pg_stat_statements, over its window).
      const last = results.at(-1)!;
      const topTable = {
        title: `Statements by total execution time at ${last.agents} agents (pg_stat_statements over the window; calls per heartbeat answered)`,
        columns: ["statement", "calls", "calls/hb", "mean ms", "total ms", "rows"],
        rows: last.top.map((t) => [
          t.query,
          t.calls,
          round(t.calls / Math.max(1, last.achievedPerS * (measureMs / 1000))),
          round(t.meanMs),
          round(t.totalMs),
          t.rows,
        ]),
      };
      return { figures, tables: [table, topTable], notes };
    } finally {
      for (const agent of agents) agent.stop();
      if (controlPlane && controlPlane.exitCode === null) {
        await new Promise<void>((done) => {
          controlPlane!.once("exit", () => done());
          controlPlane!.send({ type: "stop" });
          setTimeout(() => {
            controlPlane!.kill("SIGKILL");
            done();
          }, 10_000);
        });
      }
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
