import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { joulesPerResponse, joulesPerToken } from "./energy-per-token";

describe("F-66 / Napkin Math 13.5 / TV-074: energy of a chat", () => {
  const tokensPerS = 114 * 8; // 114 concurrent requests × 8 tok/s = 912 tok/s

  it("TV-074: 912 tok/s at 700 W GPU + 300 W host → 1,000 / 912 = 1.0965 J/token", () => {
    expect(tokensPerS).toBe(912);
    expect(joulesPerToken(700 + 300, tokensPerS).toFixed(4)).toBe("1.0965");
  });

  it("TV-074: a 500-token response → 548.2 J", () => {
    expect(joulesPerResponse(1000, tokensPerS, 500).toFixed(1)).toBe("548.2");
  });

  it("TV-074: at 10% utilization (91.2 tok/s) with ~300 W GPU + 300 W host → 6.58 J/token ('6.6', '≈ 6×')", () => {
    const low = joulesPerToken(600, 91.2);
    expect(low.toFixed(2)).toBe("6.58");
    expect(Math.round(low / joulesPerToken(1000, tokensPerS))).toBe(6);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => joulesPerToken(1000, 0)).toThrow(PlanningInputError);
    expect(() => joulesPerToken(Number.NaN, 10)).toThrow(/^powerWatts/);
    expect(() => joulesPerResponse(1000, 10, -1)).toThrow(/^tokensPerResponse/);
  });
});
