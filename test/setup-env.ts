// Runs in every integration worker before its tests: point the server's env module at the test database.
import { inject } from "vitest";

process.env.DATABASE_URL = inject("databaseUrl");
Object.assign(process.env, { NODE_ENV: "test" });
