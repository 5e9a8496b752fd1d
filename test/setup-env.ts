// Runs in every integration worker before its tests: point the server's env module at the test database.
import { inject } from "vitest";
import { testEnv } from "./test-env";

testEnv.DATABASE_URL = inject("databaseUrl");
Object.assign(testEnv, { NODE_ENV: "test" });
