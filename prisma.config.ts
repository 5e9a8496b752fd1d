import { defineConfig } from "prisma/config";

// Never env("DATABASE_URL"): it makes every CLI call fail when the variable is unset (TOOLCHAIN.md §4).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  // eslint-disable-next-line no-restricted-properties -- loaded by Prisma's CLI on its own, before any of our modules
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://placeholder@127.0.0.1:5432/placeholder" },
});
