import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const alias = { "@": fileURLToPath(new URL("./src", import.meta.url)) };

// Three suites: unit (pure, fast, parallel), integration (real PostgreSQL, ONNX Runtime, HTTP; run in one
// process so pinned instances never oversubscribe the machine), heavy (large models, not part of `npm test`).
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "apps/**/src/**/*.test.ts", "scripts/**/*.test.ts", "bench/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.heavy.test.ts", "**/node_modules/**"],
          environment: "node",
          // Generous: a hang still fails, but a property test on a loaded 2-core machine does not.
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: [
            "src/**/*.int.test.ts",
            "apps/**/src/**/*.int.test.ts",
            "scripts/**/*.int.test.ts",
            "test/**/*.int.test.ts",
          ],
          exclude: ["**/node_modules/**"],
          environment: "node",
          globalSetup: ["./test/global-setup.ts"],
          setupFiles: ["./test/setup-env.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "heavy",
          include: ["src/**/*.heavy.test.ts", "apps/**/src/**/*.heavy.test.ts"],
          exclude: ["**/node_modules/**"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 900_000,
        },
      },
    ],
  },
});
