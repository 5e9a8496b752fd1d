import { describe, expect, it } from "vitest";
import { secretWeakness, weakSecretMessage } from "./weak-secret";

describe("secretWeakness", () => {
  it.each([
    // The Kubernetes example overlay's values, as shipped.
    ["REPLACE-ME-at-least-12-characters", "placeholder"],
    ["REPLACE-ME-with-at-least-32-random-characters", "placeholder"],
    ["prat_enroll_REPLACE-ME", "placeholder"],
    ["changeme-changeme", "placeholder"],
    ["<your admin password>", "placeholder"],
    ["${ADMIN_PASSWORD}", "placeholder"],
    ["your-secret-goes-here", "placeholder"],
    // Defaults: case, separators and trailing digits do not make them new ("Pass-word123" -> "password").
    ["packrat-demo", "well-known"],
    ["Pass-word123", "well-known"],
    ["Administrator2024", "well-known"],
    ["postgres", "well-known"],
    // Few distinct characters: "aaaaaaaaaaaa" has 1, "abcabcabcabc" 3, "121212121212" 2 (< 6).
    ["aaaaaaaaaaaa", "repetitive"],
    ["abcabcabcabc", "repetitive"],
    ["121212121212", "repetitive"],
    ["0123456789abcdef0123456789abcdef", "repetitive"],
  ])("%s is %s", (value, why) => {
    expect(secretWeakness(value)).toBe(why);
  });

  it.each([
    "correct-horse-battery",
    "integration-test-secret-0123456789abcdef",
    "q8Vw2-zLp7_Rk3xT",
    "tN4b0J1u9yJ6gZ6cS3Rk1mDq2fV7hPzWcL5eXaY8oQ0",
  ])("%s passes", (value) => {
    expect(secretWeakness(value)).toBeNull();
  });

  it("the message never repeats the value", () => {
    for (const why of ["placeholder", "well-known", "repetitive"] as const)
      expect(weakSecretMessage(why)).not.toMatch(/packrat-demo|REPLACE-ME-/);
  });
});
