import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AGENT_TOKEN_PREFIX, generateAgentToken, hashAgentToken } from "./agent-tokens-service";

describe("agent token material", () => {
  it("is prat_ + 32 random bytes in base64url, shown by its first 13 characters, stored as SHA-256 hex", () => {
    const { token, tokenHash, prefix } = generateAgentToken();
    // 32 bytes = 256 bits; base64url without padding: ceil(256 / 6) = 43 characters.
    expect(token).toMatch(/^prat_[A-Za-z0-9_-]{43}$/);
    expect(prefix).toBe(token.slice(0, AGENT_TOKEN_PREFIX.length + 8));
    expect(tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(hashAgentToken(token)).toBe(tokenHash);
    expect(tokenHash).not.toContain(token.slice(AGENT_TOKEN_PREFIX.length));
  });

  it("never repeats (1000 tokens, 1000 distinct hashes)", () => {
    const hashes = new Set(Array.from({ length: 1000 }, () => generateAgentToken().tokenHash));
    expect(hashes.size).toBe(1000);
  });
});
