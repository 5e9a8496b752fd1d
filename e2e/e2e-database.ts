// A Prisma client on the database of the `npm start` the e2e suite runs against (its embedded PostgreSQL), for
// arranging fixtures and reading what the pages should show. Each spec owns its client and disconnects it.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../src/generated/prisma/client";

export function newE2ePrisma(): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: `postgresql://postgres@127.0.0.1:${Number(process.env.E2E_PG_PORT ?? 54339)}/packrat`, max: 2 }) });
}
