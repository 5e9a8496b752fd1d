// The tests' one handle on the process environment (tests, their harnesses, e2e, benchmarks, the test runner). They
// configure the code under test through it; that code reads it only through its runtime's env module
// (src/server/env.ts re-reads it after resetEnvForTests()).
export const testEnv: NodeJS.ProcessEnv = process.env;
