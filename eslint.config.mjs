import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// src/core is the pure centre (DESIGN.md): algorithms take data and return data.
const impureModules = [
  "fs", "node:fs", "fs/promises", "node:fs/promises", "child_process", "node:child_process", "net", "node:net",
  "http", "node:http", "https", "node:https", "worker_threads", "node:worker_threads", "os", "node:os",
  "pg", "onnxruntime-node", "react", "react-dom", "server-only",
];
const impurePatterns = ["next", "next/*", "@prisma/*", "@/server/*", "@/app/*", "@/components/*", "@/contracts/*"];
// The same rule for relative paths: no "../../server/…", and nothing of the apps.
const outsideCoreRelative = String.raw`^\.\.?/(.*/)?(server|app|components|contracts|generated|trpc|cli|apps)(/|$)`;

// src/contracts holds the shapes that cross a process: they are made of zod and src/core, nothing else (its tests
// may import vitest). oip-grpc.ts loads the .proto file (node:url, @grpc/proto-loader) and is the one exception.
const contractsAllowed = String.raw`^(?!(zod|\./[^.].*|\.\./core/.+|@/core/.+|@/contracts/.+)$)`;

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [".next/**", "node_modules/**", ".data/**", "src/generated/**", "bench/results/**", "next-env.d.ts",
      "playwright-report/**", "test-results/**", "apps/*/dist/**"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: impureModules.map((name) => ({ name, message: "src/core is pure: no I/O, React, Prisma or ONNX Runtime." })),
        patterns: [
          { group: impurePatterns, message: "src/core imports nothing of ours outside itself, and no frameworks." },
          { group: ["node:*", "onnxruntime-*"], message: "src/core is pure: no I/O, React, Prisma or ONNX Runtime." },
          { regex: outsideCoreRelative, message: "src/core imports nothing of ours outside itself, and no frameworks." },
        ],
      }],
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "src/core never reads the environment." }],
      "no-restricted-globals": ["error", { name: "fetch", message: "src/core does no I/O." }],
    },
  },
  {
    files: ["src/contracts/**/*.ts"],
    ignores: ["src/contracts/**/*.test.ts", "src/contracts/oip-grpc.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{ regex: contractsAllowed, message: "src/contracts imports only zod, src/core and other contracts." }],
      }],
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "src/contracts never reads the environment." }],
    },
  },
];
export default config;
