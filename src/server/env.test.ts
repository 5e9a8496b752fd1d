import { describe, expect, it } from "vitest";
import { env, loadControlPlaneEnv, provideDatabaseUrl, resetEnvForTests } from "./env";
import { testEnv } from "../../test/test-env";

describe("control-plane env", () => {
  it("applies documented defaults", () => {
    const env = loadControlPlaneEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.HEARTBEAT_INTERVAL_MS).toBe(5000);
    expect(env.LONG_POLL_HOLD_MS).toBe(25000);
    expect(env.PACKRAT_PUBLIC_URL).toBe("http://localhost:3000");
    expect(env.DATABASE_URL).toBeUndefined();
  });
  it("derives the public URL from PORT", () => {
    expect(loadControlPlaneEnv({ PORT: "4100" }).PACKRAT_PUBLIC_URL).toBe("http://localhost:4100");
  });
  it("names a bad DATABASE_URL in one line without echoing the secret", () => {
    expect(() => loadControlPlaneEnv({ DATABASE_URL: "mysql://u:secret@h/db" })).toThrowError(
      /^invalid environment variable DATABASE_URL: must be a postgresql:\/\/ URL/,
    );
    try {
      loadControlPlaneEnv({ DATABASE_URL: "mysql://u:secret@h/db" });
    } catch (e) {
      expect((e as Error).message).not.toContain("secret");
      expect((e as Error).message).not.toContain("\n");
    }
  });
  it("names a bad PORT and shows the value", () => {
    expect(() => loadControlPlaneEnv({ PORT: "http" })).toThrowError(
      /^invalid environment variable PORT \(got "http"\)/,
    );
  });
  it("treats an empty variable as unset", () => {
    expect(loadControlPlaneEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("demo users only on loopback (npm start's default) or when asked for explicitly; never keyed on NODE_ENV", () => {
    const defaults = loadControlPlaneEnv({ NODE_ENV: "production" });
    expect(defaults.HOST).toBe("127.0.0.1");
    expect(defaults.PACKRAT_DEMO_USERS).toBe(true);
    for (const host of ["::1", "[::1]", "localhost", "127.0.0.2"])
      expect(loadControlPlaneEnv({ HOST: host }).PACKRAT_DEMO_USERS, host).toBe(true);
    // Reachable from elsewhere (the container's 0.0.0.0, a LAN address): no demo users unless explicitly true.
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "packrat.internal"])
      expect(loadControlPlaneEnv({ HOST: host }).PACKRAT_DEMO_USERS, host).toBe(false);
    expect(loadControlPlaneEnv({ HOST: "0.0.0.0", PACKRAT_DEMO_USERS: "true" }).PACKRAT_DEMO_USERS).toBe(true);
    expect(loadControlPlaneEnv({ HOST: "127.0.0.1", PACKRAT_DEMO_USERS: "false" }).PACKRAT_DEMO_USERS).toBe(false);
  });

  it("placeholder and weak secrets are refused at start, naming the variable, never the value", () => {
    const cases: Array<[string, string, RegExp]> = [
      // The Kubernetes example overlay's values (deploy/kubernetes/overlays/example/secrets.example.yaml).
      ["PACKRAT_ADMIN_PASSWORD", "REPLACE-ME-at-least-12-characters", /placeholder/],
      ["BETTER_AUTH_SECRET", "REPLACE-ME-with-at-least-32-random-characters", /placeholder/],
      [
        "DATABASE_URL",
        "postgresql://packrat:REPLACE-ME@10.20.0.5:5432/packrat?sslmode=require",
        /password is still a placeholder/,
      ],
      ["PACKRAT_ADMIN_PASSWORD", "packrat-demo-1", /well-known/],
      ["PACKRAT_ADMIN_PASSWORD", "Password1234", /well-known/],
      ["PACKRAT_ADMIN_PASSWORD", "aaaaaaaaaaaaaaaa", /repetitive/],
      ["BETTER_AUTH_SECRET", "abababababababababababababababab", /repetitive/],
    ];
    for (const [name, value, why] of cases) {
      let message = "";
      try {
        loadControlPlaneEnv({ [name]: value });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, `${name}=${value}`).toMatch(new RegExp(`^invalid environment variable ${name}: .*${why.source}`));
      expect(message).not.toContain(value);
      expect(message).not.toContain("REPLACE-ME-");
    }
    // Real values pass.
    expect(
      loadControlPlaneEnv({
        PACKRAT_ADMIN_PASSWORD: "correct-horse-battery",
        BETTER_AUTH_SECRET: "tN4b0J1u9yJ6gZ6cS3Rk1mDq2fV7hPzWcL5eXaY8oQ0",
      }).PACKRAT_ADMIN_PASSWORD,
    ).toBe("correct-horse-battery");
  });

  it("users: the first admin's variables are validated without echoing secrets", () => {
    const defaults = loadControlPlaneEnv({});
    expect(defaults.SIGN_IN_MAX_FAILURES_PER_CLIENT).toBe(5);
    expect(defaults.SIGN_IN_MAX_FAILURES_PER_IP).toBe(20);
    expect(defaults.SIGN_IN_ACCOUNT_SLOWDOWN_AFTER).toBe(10);
    expect(defaults.SIGN_IN_ACCOUNT_SLOWDOWN_MS).toBe(30_000);
    expect(defaults.SIGN_IN_FAILURE_WINDOW_MS).toBe(900_000);
    // Forwarded headers are trusted only when proxies are declared.
    expect(defaults.PACKRAT_TRUSTED_PROXY_HOPS).toBe(0);
    expect(loadControlPlaneEnv({ PACKRAT_TRUSTED_PROXY_HOPS: "1" }).PACKRAT_TRUSTED_PROXY_HOPS).toBe(1);
    expect(() => loadControlPlaneEnv({ PACKRAT_TRUSTED_PROXY_HOPS: "-1" })).toThrowError(
      /^invalid environment variable PACKRAT_TRUSTED_PROXY_HOPS/,
    );
    expect(loadControlPlaneEnv({ PACKRAT_DEMO_USERS: "false" }).PACKRAT_DEMO_USERS).toBe(false);
    expect(() => loadControlPlaneEnv({ PACKRAT_ADMIN_EMAIL: "root" })).toThrowError(
      /^invalid environment variable PACKRAT_ADMIN_EMAIL \(got "root"\): must be an email/,
    );
    expect(() => loadControlPlaneEnv({ PACKRAT_ADMIN_PASSWORD: "short-pw" })).toThrowError(
      /^invalid environment variable PACKRAT_ADMIN_PASSWORD: must be at least 12 characters$/,
    );
    expect(() => loadControlPlaneEnv({ BETTER_AUTH_SECRET: "tiny-secret" })).toThrowError(
      /^invalid environment variable BETTER_AUTH_SECRET: must be at least 32/,
    );
    for (const [name, value] of [
      ["PACKRAT_ADMIN_PASSWORD", "short-pw"],
      ["BETTER_AUTH_SECRET", "tiny-secret"],
    ] as const) {
      try {
        loadControlPlaneEnv({ [name]: value });
      } catch (e) {
        expect((e as Error).message).not.toContain(value);
      }
    }
  });

  it("model registry: 2 GiB upload limit, 4 GiB validation RSS, 60 s validation by default; each overridable", () => {
    const defaults = loadControlPlaneEnv({});
    // 2 GiB = 2 × 1024³ = 2,147,483,648 bytes; 4 GiB = 4,294,967,296 bytes.
    expect(defaults.MODEL_UPLOAD_MAX_BYTES).toBe(2_147_483_648);
    expect(defaults.MODEL_VALIDATE_MAX_RSS).toBe(4_294_967_296);
    expect(defaults.MODEL_VALIDATE_TIMEOUT_MS).toBe(60_000);
    const set = loadControlPlaneEnv({
      MODEL_UPLOAD_MAX_BYTES: "1000",
      MODEL_VALIDATE_MAX_RSS: "2000",
      MODEL_VALIDATE_TIMEOUT_MS: "3000",
    });
    expect([set.MODEL_UPLOAD_MAX_BYTES, set.MODEL_VALIDATE_MAX_RSS, set.MODEL_VALIDATE_TIMEOUT_MS]).toEqual([
      1000, 2000, 3000,
    ]);
    expect(() => loadControlPlaneEnv({ MODEL_UPLOAD_MAX_BYTES: "-5" })).toThrowError(
      /^invalid environment variable MODEL_UPLOAD_MAX_BYTES \(got "-5"\)/,
    );
  });
  it("import by URL: https only and 10 minutes per download by default; http is an admin's opt-in", () => {
    const d = loadControlPlaneEnv({});
    expect([d.MODEL_IMPORT_ALLOW_HTTP, d.MODEL_IMPORT_TIMEOUT_MS]).toEqual([false, 600_000]);
    const set = loadControlPlaneEnv({ MODEL_IMPORT_ALLOW_HTTP: "true", MODEL_IMPORT_TIMEOUT_MS: "5000" });
    expect([set.MODEL_IMPORT_ALLOW_HTTP, set.MODEL_IMPORT_TIMEOUT_MS]).toEqual([true, 5000]);
  });
  it("alerts: evaluated every 5 s over a 5-minute window; webhook retries from 1 s doubling to 5 min, 6 tries", () => {
    const d = loadControlPlaneEnv({});
    expect(d.ALERT_EVALUATION_INTERVAL_MS).toBe(5_000);
    expect(d.ALERT_WINDOW_MS).toBe(300_000);
    expect(d.ALERT_WEBHOOK_BACKOFF_MS).toBe(1_000);
    expect(d.ALERT_WEBHOOK_BACKOFF_MAX_MS).toBe(300_000);
    expect(d.ALERT_WEBHOOK_MAX_ATTEMPTS).toBe(6);
    expect(loadControlPlaneEnv({ ALERT_EVALUATION_INTERVAL_MS: "250" }).ALERT_EVALUATION_INTERVAL_MS).toBe(250);
    expect(() => loadControlPlaneEnv({ ALERT_REJECTIONS_PER_S: "0" })).toThrowError(
      /^invalid environment variable ALERT_REJECTIONS_PER_S/,
    );
  });

  it("takes the database the launcher started, even after the environment was read", () => {
    const before = testEnv.DATABASE_URL;
    try {
      env();
      provideDatabaseUrl("postgresql://postgres@127.0.0.1:5999/launched");
      expect(env().DATABASE_URL).toBe("postgresql://postgres@127.0.0.1:5999/launched");
    } finally {
      if (before === undefined) delete testEnv.DATABASE_URL;
      else testEnv.DATABASE_URL = before;
      resetEnvForTests();
    }
  });
});
