import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PASSWORD_FILE, startEmbeddedPostgres, removeCluster, type RunningPostgres } from "./embedded-postgres";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function selectOne(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const result = await client.query<{ one: number }>("SELECT 1 AS one");
  await client.end();
  return result.rows[0]!.one;
}

describe("embedded PostgreSQL", () => {
  it("initializes, serves, survives a restart with its data, and stops", async () => {
    const base = mkdtempSync(join(tmpdir(), "packrat-epg-"));
    chmodSync(base, 0o755);
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dataDir = join(base, "pg");
    const port = await freePort();
    let server: RunningPostgres = await startEmbeddedPostgres({ dataDir, port });
    cleanups.push(() => server.stop());
    expect(await selectOne(server.url("postgres"))).toBe(1);
    const client = new pg.Client({ connectionString: server.url("postgres") });
    await client.connect();
    await client.query("CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
    await client.end();
    await server.stop();
    expect(existsSync(join(dataDir, "postmaster.pid"))).toBe(false);
    server = await startEmbeddedPostgres({ dataDir, port });
    const again = new pg.Client({ connectionString: server.url("postgres") });
    await again.connect();
    expect((await again.query("SELECT v FROM kept")).rows).toEqual([{ v: 42 }]);
    await again.end();
  });

  it("stops a server left running by a killed supervisor before starting", async () => {
    const base = mkdtempSync(join(tmpdir(), "packrat-epg-stale-"));
    chmodSync(base, 0o755);
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dataDir = join(base, "pg");
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir, port });
    const stalePid = first.pid; // we "forget" it, as a SIGKILLed supervisor would
    const lines: string[] = [];
    const second = await startEmbeddedPostgres({ dataDir, port, log: (l) => lines.push(l) });
    cleanups.push(() => second.stop());
    expect(lines.join("\n")).toContain(`pid ${stalePid}`);
    expect(second.pid).not.toBe(stalePid);
    expect(await selectOne(second.url("postgres"))).toBe(1);
  });

  it.runIf(userInfo().uid === 0)("falls back to the temp dir when user postgres cannot traverse the path", async () => {
    const locked = mkdtempSync(join(tmpdir(), "packrat-epg-locked-"));
    chmodSync(locked, 0o700);
    cleanups.push(() => rmSync(locked, { recursive: true, force: true }));
    mkdirSync(join(locked, "project"));
    const lines: string[] = [];
    const server = await startEmbeddedPostgres({
      dataDir: join(locked, "project", ".data", "pg"),
      port: await freePort(),
      log: (l) => lines.push(l),
    });
    cleanups.push(async () => {
      await server.stop();
      removeCluster(server.dataDir);
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot traverse .*; using .*packrat-pg-data-/);
    expect(server.dataDir.startsWith(tmpdir())).toBe(true);
    expect(readFileSync(join(server.dataDir, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
    expect(await selectOne(server.url("postgres"))).toBe(1);
  });

  it("needs the superuser password (SCRAM) over TCP and the Unix socket; the password is kept 0600 in the data dir", async () => {
    const base = mkdtempSync(join(tmpdir(), "packrat-epg-auth-"));
    chmodSync(base, 0o755);
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dataDir = join(base, "pg");
    const port = await freePort();
    const server = await startEmbeddedPostgres({ dataDir, port });
    cleanups.push(() => server.stop());
    const file = join(server.dataDir, PASSWORD_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(server.url("postgres")).toContain(encodeURIComponent(password));
    // Without it: refused, over TCP and over the socket the server keeps inside its data dir.
    for (const host of ["127.0.0.1", server.dataDir]) {
      const client = new pg.Client({ host, port, user: "postgres", database: "postgres" });
      await expect(client.connect(), host).rejects.toThrow(/password|SASL/i);
      await client.end().catch(() => {});
      const wrong = new pg.Client({ host, port, user: "postgres", password: "not-the-password", database: "postgres" });
      await expect(wrong.connect(), host).rejects.toThrow(/password authentication failed/);
      await wrong.end().catch(() => {});
    }
    expect(existsSync(join(server.dataDir, `.s.PGSQL.${port}`))).toBe(true);
    const viaSocket = new pg.Client({ host: server.dataDir, port, user: "postgres", password, database: "postgres" });
    await viaSocket.connect();
    expect(
      (
        await viaSocket.query(
          "SELECT rolpassword LIKE 'SCRAM-SHA-256$%' AS scram FROM pg_authid WHERE rolname = 'postgres'",
        )
      ).rows,
    ).toEqual([{ scram: true }]);
    await viaSocket.end();
    expect(readFileSync(join(server.dataDir, "pg_hba.conf"), "utf8")).not.toMatch(/^\s*(local|host)\s.*\btrust\b/m);
  });

  it("a cluster made before passwords (initdb --auth=trust) gets one at its next start", async () => {
    const base = mkdtempSync(join(tmpdir(), "packrat-epg-legacy-"));
    chmodSync(base, 0o755);
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dataDir = join(base, "pg");
    const port = await freePort();
    // Made the old way: start one, then make it a trust cluster with no password file.
    const first = await startEmbeddedPostgres({ dataDir, port });
    await first.stop();
    writeFileSync(join(dataDir, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    rmSync(join(dataDir, PASSWORD_FILE));
    const lines: string[] = [];
    const server = await startEmbeddedPostgres({ dataDir, port, log: (l) => lines.push(l) });
    cleanups.push(() => server.stop());
    expect(lines.join("\n")).toMatch(/now needs a password/);
    expect(await selectOne(server.url("postgres"))).toBe(1);
    const anonymous = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    await expect(anonymous.connect()).rejects.toThrow(/password|SASL/i);
    await anonymous.end().catch(() => {});
  });
});
