// Database round trip: one indexed lookup through Prisma 7 (driver adapter over pg) against the same query
// through raw `pg`, interleaved in the same run so machine noise hits both alike.
import { resolve } from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../src/generated/prisma/client";
import { migrate } from "../src/server/db/migrator";
import { createDatabase, findTestPostgres } from "../test/find-postgres";
import { summarize } from "./sample-stats";
import type { Benchmark } from "./types";
import { testEnv } from "../test/test-env";

const bench: Benchmark = {
  name: "database",
  description: "Indexed lookup round trip: Prisma 7 (adapter-pg) vs raw pg, same pool size, interleaved",
  async run({ quick }) {
    const server = await findTestPostgres(testEnv);
    const database = await createDatabase(server.adminUrl, "packrat_bench");
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 1 }) });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      await migrate(database.url, resolve("prisma/migrations"));
      await prisma.user.create({ data: { id: "bench-user", name: "Bench", email: "bench@example.com", role: "sre" } });
      const rounds = quick ? 5 : 20;
      const perRound = quick ? 100 : 250;
      const viaPrisma: number[] = [];
      const viaPg: number[] = [];
      const timePrisma = async () => {
        const t = performance.now();
        await prisma.user.findUnique({ where: { email: "bench@example.com" } });
        viaPrisma.push((performance.now() - t) * 1000);
      };
      const timePg = async () => {
        const t = performance.now();
        await pool.query(`SELECT * FROM "user" WHERE email = $1`, ["bench@example.com"]);
        viaPg.push((performance.now() - t) * 1000);
      };
      for (let i = 0; i < 200; i++) {
        await timePrisma();
        await timePg();
      } // warm-up: pools, plan cache, JIT
      viaPrisma.length = 0;
      viaPg.length = 0;
      for (let round = 0; round < rounds; round++) {
        // Alternate which goes first so neither always follows the other.
        for (let i = 0; i < perRound; i++) {
          if ((round + i) % 2 === 0) {
            await timePrisma();
            await timePg();
          } else {
            await timePg();
            await timePrisma();
          }
        }
      }
      const p = summarize(viaPrisma);
      const r = summarize(viaPg);
      return {
        figures: [
          {
            label: "p50 round trip, raw pg (baseline)",
            value: r.p50,
            unit: "µs",
            samples: r.n,
            spread: { kind: "iqr", low: r.p25, high: r.p75 },
          },
          {
            label: "p50 round trip, Prisma",
            value: p.p50,
            unit: "µs",
            samples: p.n,
            spread: { kind: "iqr", low: p.p25, high: p.p75 },
          },
          { label: "p99 round trip, raw pg (baseline)", value: r.p99, unit: "µs", samples: r.n },
          { label: "p99 round trip, Prisma", value: p.p99, unit: "µs", samples: p.n },
          { label: "Prisma / raw pg, p50", value: p.p50 / r.p50, unit: "×" },
          { label: "Prisma / raw pg, p99", value: p.p99 / r.p99, unit: "×" },
        ],
        notes: [
          `PostgreSQL source: ${server.source}; ${rounds} interleaved rounds of ${perRound} lookups each, after 200 warm-up pairs.`,
        ],
      };
    } finally {
      await prisma.$disconnect();
      await pool.end();
      await database.drop();
      await server.stop();
    }
  },
};

export default bench;
