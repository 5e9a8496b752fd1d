import { afterEach, describe, expect, it } from "vitest";
import { passwords, usePasswordHasherForTests } from "./password";
import { cheapHasher } from "./test-support";

afterEach(() => usePasswordHasherForTests(undefined));

describe("passwords", () => {
  it("hash with better-auth's scrypt by default: salted (two hashes differ), and only the right password verifies", async () => {
    const a = await passwords.hash("packrat-demo");
    const b = await passwords.hash("packrat-demo");
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-f]+:[0-9a-f]+$/); // better-auth's "salt:key" hex format
    expect(await passwords.verify(a, "packrat-demo")).toBe(true);
    expect(await passwords.verify(a, "packrat-demo ")).toBe(false);
  });

  it("let tests plug a cheaper hasher, and restore scrypt after", async () => {
    usePasswordHasherForTests(cheapHasher);
    const cheap = await passwords.hash("pw-123456789012");
    expect(cheap).toMatch(/^test:/);
    expect(await passwords.verify(cheap, "pw-123456789012")).toBe(true);
    usePasswordHasherForTests(undefined);
    expect(await passwords.hash("x")).not.toMatch(/^test:/);
  });
});
