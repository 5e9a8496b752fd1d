import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "@/server/env";

// One client per process. Next's route handlers and instrumentation do not share module state, so the
// instance lives on globalThis (TOOLCHAIN.md, pg-boss notes).
const globalForPrisma = globalThis as unknown as { packratPrisma?: PrismaClient };

export function db(): PrismaClient {
  if (!globalForPrisma.packratPrisma) {
    const { DATABASE_URL, DATABASE_POOL_MAX } = env();
    if (!DATABASE_URL) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded database)");
    globalForPrisma.packratPrisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: DATABASE_URL, max: DATABASE_POOL_MAX }),
    });
  }
  return globalForPrisma.packratPrisma;
}

/** Tests point DATABASE_URL at another database or role; production never calls this. */
export async function resetDbForTests(): Promise<void> {
  const client = globalForPrisma.packratPrisma;
  globalForPrisma.packratPrisma = undefined;
  await client?.$disconnect();
}
