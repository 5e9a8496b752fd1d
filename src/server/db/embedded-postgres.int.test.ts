import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, removeCluster, type RunningPostgres } from "./embedded-postgres";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

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
    const server = await startEmbeddedPostgres({ dataDir: join(locked, "project", ".data", "pg"), port: await freePort(), log: (l) => lines.push(l) });
    cleanups.push(async () => { await server.stop(); removeCluster(server.dataDir); });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot traverse .*; using .*packrat-pg-data-/);
    expect(server.dataDir.startsWith(tmpdir())).toBe(true);
    expect(readFileSync(join(server.dataDir, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
    expect(await selectOne(server.url("postgres"))).toBe(1);
  });
});
