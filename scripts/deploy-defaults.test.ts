// What the shipped deployment files start with, fed through the control plane's own env module: the image,
// compose and the Kubernetes overlay never seed demo users (they listen on 0.0.0.0), compose publishes on
// 127.0.0.1 unless told otherwise and will not start without a first admin, and the overlay's example secrets
// (REPLACE-ME…) are refused at start instead of becoming the admin password.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { loadControlPlaneEnv } from "../src/server/env";

const root = resolve(import.meta.dirname, "..");
const read = (path: string) => readFileSync(resolve(root, path), "utf8");

/** The runtime stage's ENV lines of the Dockerfile, as a map. */
function imageEnv(): Record<string, string> {
  const runtime = read("Dockerfile").split(/^FROM .* AS runtime$/m)[1]!;
  const env: Record<string, string> = {};
  for (const line of runtime.split("\n").filter((l) => l.startsWith("ENV "))) {
    for (const [, k, v] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  }
  return env;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- parsed YAML */
describe("deployment defaults", () => {
  it("the image listens on 0.0.0.0, so no demo users and no demo password on the sign-in page", () => {
    const env = imageEnv();
    expect(env.HOST).toBe("0.0.0.0");
    expect(env.PACKRAT_DEMO_USERS).toBeUndefined();
    expect(
      loadControlPlaneEnv({ ...env, DATABASE_URL: "postgresql://packrat:s3cret-value@db/packrat" }).PACKRAT_DEMO_USERS,
    ).toBe(false);
  });

  it("compose publishes on 127.0.0.1 unless PACKRAT_BIND_ADDRESS says otherwise, and requires the first admin", () => {
    const compose = load(read("docker-compose.yml")) as any;
    for (const service of ["control-plane", "agent"]) {
      for (const port of compose.services[service].ports as string[])
        expect(port, service).toMatch(/^\$\{PACKRAT_BIND_ADDRESS:-127\.0\.0\.1\}:\d+:\d+$/);
    }
    const environment = compose.services["control-plane"].environment;
    expect(environment.PACKRAT_ADMIN_EMAIL).toMatch(/^\$\{PACKRAT_ADMIN_EMAIL:\?/);
    expect(environment.PACKRAT_ADMIN_PASSWORD).toMatch(/^\$\{PACKRAT_ADMIN_PASSWORD:\?/);
    expect(environment.PACKRAT_DEMO_USERS).toBeUndefined();
    expect(environment.HOST).toBeUndefined(); // the image's 0.0.0.0 inside the container
  });

  it("the Kubernetes config turns demo users off, and its example secrets are refused at start", () => {
    const config = load(read("deploy/kubernetes/base/config.yaml")) as any;
    const secrets = read("deploy/kubernetes/overlays/example/secrets.example.yaml")
      .split(/^---$/m)
      .map((doc) => (load(doc) as any).stringData);
    const merged = { ...imageEnv(), ...config.data, ...Object.assign({}, ...secrets) };
    expect(() => loadControlPlaneEnv(merged)).toThrow(
      /^invalid environment variable (DATABASE_URL|BETTER_AUTH_SECRET|PACKRAT_ADMIN_PASSWORD): .*placeholder/,
    );
    // Each placeholder on its own is refused too, not just the first one found.
    for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET", "PACKRAT_ADMIN_PASSWORD"]) {
      const value = (Object.assign({}, ...secrets) as Record<string, string>)[name]!;
      expect(() => loadControlPlaneEnv({ ...imageEnv(), ...config.data, [name]: value }), name).toThrow(
        new RegExp(`^invalid environment variable ${name}: .*placeholder`),
      );
    }
    // With real values in their place the same configuration starts, without demo users.
    const real = {
      ...merged,
      DATABASE_URL: "postgresql://packrat:Zq8-vW2zLp7@10.20.0.5:5432/packrat",
      BETTER_AUTH_SECRET: "tN4b0J1u9yJ6gZ6cS3Rk1mDq2fV7hPzWcL5eXaY8oQ0",
      PACKRAT_ADMIN_PASSWORD: "correct-horse-battery",
    };
    expect(loadControlPlaneEnv(real).PACKRAT_DEMO_USERS).toBe(false);
  });
});
