import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { pgPool, resetPgPoolForTests } from "./pg-pool";

// One client per process. Next's route handlers and instrumentation do not share module state, so the
// instance lives on globalThis (TOOLCHAIN.md, pg-boss notes). It runs on the process's one pool (pg-pool.ts).
const globalForPrisma = globalThis as unknown as { packratPrisma?: PrismaClient };

export function db(): PrismaClient {
  if (!globalForPrisma.packratPrisma) {
    globalForPrisma.packratPrisma = new PrismaClient({ adapter: new PrismaPg(pgPool()) });
  }
  return globalForPrisma.packratPrisma;
}

/** Tests point DATABASE_URL at another database or role; production never calls this. */
export async function resetDbForTests(): Promise<void> {
  const client = globalForPrisma.packratPrisma;
  globalForPrisma.packratPrisma = undefined;
  await client?.$disconnect();
  await resetPgPoolForTests();
}
