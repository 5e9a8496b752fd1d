// `npm start`: the supervisor. Starts the embedded PostgreSQL when DATABASE_URL is unset, applies migrations,
// builds when the source changed, runs the web process (scripts/serve.ts: the agent API front and Next's handler over
// the production build; `next dev` with --dev), and stops everything it started on SIGINT/SIGTERM.
// A previous run killed with SIGKILL is cleaned up from the pid files under .data/run.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import {
  isLoopbackHost,
  loadControlPlaneEnv,
  EnvError,
  processEnvironment,
  provideDatabaseUrl,
  type ControlPlaneEnv,
} from "../src/server/env";
import { startEmbeddedPostgres, type RunningPostgres } from "../src/server/db/embedded-postgres";
import { migrate, MigrationError } from "../src/server/db/migrator";
import { resolveAuthSecret } from "../src/server/auth/secret";
import { seedUsersAtStart } from "../src/server/auth/seed-users";
import { build, buildNeeded } from "./lib/build";
import { forwardIpv6Loopback } from "./lib/loopback-forward";

const root = resolve(import.meta.dirname, "..");
const devMode = process.argv.includes("--dev");
const say = (line: string) => console.log(`[packrat] ${line}`);

let env: ControlPlaneEnv;
try {
  env = loadControlPlaneEnv();
} catch (error) {
  if (error instanceof EnvError) {
    console.error(`[packrat] ${error.message}`);
    process.exit(1);
  }
  throw error;
}

const dataDir = resolve(root, env.PACKRAT_DATA_DIR);
const runDir = join(dataDir, "run");
mkdirSync(runDir, { recursive: true });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Stops processes a previous supervisor recorded (it was SIGKILLed and could not stop them). */
async function stopStaleProcesses(): Promise<void> {
  for (const file of readdirSync(runDir).filter((f) => f.endsWith(".pid"))) {
    const pid = Number(readFileSync(join(runDir, file), "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      const name = file.replace(/\.pid$/, "");
      say(`stopping ${name} (pid ${pid}) left from an earlier start`);
      // postgres: SIGINT is its fast shutdown; everything else: SIGTERM.
      process.kill(pid, name === "postgres" ? "SIGINT" : "SIGTERM");
      for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(join(runDir, file), { force: true });
  }
}

const children = new Map<string, ChildProcess>();
let database: RunningPostgres | undefined;
let stopping = false;

function recordPid(name: string, pid: number): void {
  writeFileSync(join(runDir, `${name}.pid`), String(pid));
}

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise(() => {}) as Promise<never>;
  stopping = true;
  for (const [name, child] of children) {
    if (child.exitCode === null && child.signalCode === null) {
      say(`stopping ${name}`);
      child.kill("SIGTERM");
    }
  }
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const timer = setTimeout(() => {
            child.kill("SIGKILL");
            done();
          }, 15_000);
          child.once("exit", () => {
            clearTimeout(timer);
            done();
          });
        }),
    ),
  );
  if (database) {
    say("stopping PostgreSQL");
    await database.stop().catch((e: Error) => say(`PostgreSQL stop failed: ${e.message}`));
  }
  rmSync(runDir, { recursive: true, force: true });
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

function startChild(name: string, args: string[], extraEnv: Record<string, string>): ChildProcess {
  // `next dev` forks workers that inherit its --import flags; the exit-on-disconnect hook would end them at once.
  const preload = name === "web" && devMode ? [] : ["--import", join(root, "scripts/lib/exit-on-disconnect.mjs")];
  const child = spawn(process.execPath, [...preload, ...args], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: processEnvironment({ ...extraEnv, NEXT_TELEMETRY_DISABLED: "1" }),
  });
  children.set(name, child);
  recordPid(name, child.pid!);
  child.on("exit", (code, signal) => {
    if (stopping) return;
    say(`${name} exited (${signal ?? `code ${code}`}); stopping`);
    void shutdown(code || 1);
  });
  return child;
}

async function ensureDatabase(): Promise<string> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const started = Date.now();
  database = await startEmbeddedPostgres({
    dataDir: join(dataDir, "pg"),
    port: env.PACKRAT_EMBEDDED_PG_PORT,
    log: say,
  });
  recordPid("postgres", database.pid);
  const admin = new pg.Client({ connectionString: database.url("postgres") });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'packrat'");
  if (exists.rowCount === 0) await admin.query("CREATE DATABASE packrat");
  await admin.end();
  say(
    `embedded PostgreSQL ready on 127.0.0.1:${env.PACKRAT_EMBEDDED_PG_PORT} (data in ${database.dataDir}, ${Date.now() - started} ms)`,
  );
  return database.url("packrat");
}

function ensureBuild(): void {
  const reason = buildNeeded(root);
  if (!reason) return;
  say(`${reason}: building (about a minute on 2 cores)`);
  if (!build(root)) throw new Error("next build failed (see its output above)");
}

/** One local agent with a demo model, so a new user sees a live agent at once (PACKRAT_LOCAL_AGENT=false: none). */
async function startLocalAgent(databaseUrl: string): Promise<void> {
  provideDatabaseUrl(databaseUrl); // the services below read it through the env module
  const { ensureLocalAgentToken, ensureDemoDeployment, ensureDemoPriceForLocalAgent } =
    await import("../src/server/services/local-agent-service");
  const { token, tokenId } = await ensureLocalAgentToken(join(dataDir, "local-agent.token"));
  startChild("agent", ["--import", "tsx", join(root, "apps/agent/src/cli.ts")], {
    PACKRAT_CONTROL_PLANE_URL: `http://127.0.0.1:${env.PORT}`,
    AGENT_TOKEN: token, // in the environment, never on a command line (ps shows those)
    AGENT_HOST: "127.0.0.1",
    AGENT_PORT: String(env.PACKRAT_LOCAL_AGENT_PORT),
    AGENT_STATE_DIR: join(dataDir, "agent"),
  });
  say(`local agent: inference at http://127.0.0.1:${env.PACKRAT_LOCAL_AGENT_PORT}/v2 (OIP v2)`);
  ensureDemoDeployment(tokenId, join(dataDir, "demo-deployment.json"), say).catch((error: Error) =>
    say(`demo deployment failed: ${error.message.split("\n")[0]}`),
  );
  if (env.PACKRAT_DEMO_USERS)
    ensureDemoPriceForLocalAgent(tokenId, say).catch((error: Error) =>
      say(`demo price failed: ${error.message.split("\n")[0]}`),
    );
}

try {
  await stopStaleProcesses();
  recordPid("supervisor", process.pid);
  const databaseUrl = await ensureDatabase();
  const applied = await migrate(databaseUrl, join(root, "prisma/migrations"));
  if (applied.length) say(`applied ${applied.length} migration(s)`);
  // Before the dashboard starts: the cookie-signing secret exists, and so do the first users.
  resolveAuthSecret({ secret: env.BETTER_AUTH_SECRET, dataDir });
  const seeded = await seedUsersAtStart(databaseUrl, {
    demoUsers: env.PACKRAT_DEMO_USERS,
    adminEmail: env.PACKRAT_ADMIN_EMAIL,
    adminPassword: env.PACKRAT_ADMIN_PASSWORD,
  });
  for (const line of seeded) say(line);
  if (!devMode) ensureBuild();
  const nextBin = join(root, "node_modules/next/dist/bin/next");
  // The dashboard decides the demo-user hint the same way this supervisor decided the seed: hand it the verdict.
  const webEnv = { DATABASE_URL: databaseUrl, HOST: env.HOST, PACKRAT_DEMO_USERS: String(env.PACKRAT_DEMO_USERS) };
  if (devMode) startChild("web", [nextBin, "dev", "-p", String(env.PORT), "-H", env.HOST], webEnv);
  // NODE_ENV as `next start` sets it: React and Next load their production builds only with it.
  else
    startChild("web", ["--import", "tsx", join(root, "scripts/serve.ts")], {
      ...webEnv,
      PORT: String(env.PORT),
      NODE_ENV: "production",
    });
  if (env.HOST === "127.0.0.1" && !(await forwardIpv6Loopback(env.PORT)))
    say("no IPv6 loopback here: the dashboard answers on 127.0.0.1 only");
  say(
    `dashboard: http://localhost:${env.PORT}  (health: /api/health; listening on ${env.HOST === "127.0.0.1" ? "127.0.0.1 and ::1 only, set HOST=0.0.0.0 to open it" : env.HOST})`,
  );
  if (env.PACKRAT_DEMO_USERS && !isLoopbackHost(env.HOST))
    say(
      "demo users are on (PACKRAT_DEMO_USERS=true) while the dashboard is reachable from other machines: anyone can sign in as admin@example.com",
    );
  if (env.PACKRAT_LOCAL_AGENT) await startLocalAgent(databaseUrl);
} catch (error) {
  const message = error instanceof MigrationError || error instanceof Error ? error.message : String(error);
  console.error(`[packrat] start failed: ${message.split("\n")[0]}`);
  await shutdown(1);
}
