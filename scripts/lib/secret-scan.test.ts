// The matcher against brute force (String.indexOf for every secret at every position), and the list parser.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DOCUMENTED_DEMO_PASSWORD,
  lineOf,
  maskSecret,
  MIN_SECRET_LENGTH,
  parseSecretList,
  SecretListError,
  SecretMatcher,
  type Secret,
} from "./secret-scan";

const line = (kind: string, value: string) => JSON.stringify({ kind, value });

function bruteForce(text: string, secrets: Secret[]): Array<{ kind: string; index: number }> {
  const hits: Array<{ kind: string; index: number }> = [];
  for (const s of secrets) {
    for (const needle of new Set([s.value, encodeURIComponent(s.value)])) {
      for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1))
        hits.push({ kind: s.kind, index: i });
    }
  }
  return hits;
}
const sorted = (hits: Array<{ kind: string; index: number }>) => hits.map((h) => `${h.index}:${h.kind}`).sort();

describe("SecretMatcher", () => {
  const token = "prat_Zx3kq0W9mHcY2b7Lr5Tn8Vf1Gd6Sj4Pa0Ue2Io9Ky7Q";
  const session = "q8dK2mN4pR6sT0vX3zB5cF7hJ9lM1nP4";

  it("finds a token in a log line, a cookie value and at the very start and end of the text", () => {
    const matcher = new SecretMatcher([
      { kind: "agent token", value: token },
      { kind: "session token", value: session },
    ]);
    const text = `${token} start\n{"msg":"x","authorization":"Bearer ${token}"}\nset-cookie: packrat.session_token=${session}.c2ln; HttpOnly\nend ${session}`;
    const hits = matcher.find(text);
    expect(hits.map((h) => h.kind)).toEqual(["agent token", "agent token", "session token", "session token"]);
    expect(hits.map((h) => lineOf(text, h.index))).toEqual([1, 2, 3, 4]);
    expect(hits[0]!.masked).toBe("prat… (48 characters)");
  });

  it("finds a value with escaped characters in its URL-encoded form (a cookie header, a query string)", () => {
    const secret = "a+b/c=d e&f-long";
    const hits = new SecretMatcher([{ kind: "password", value: secret }]).find(
      `GET /x?p=${encodeURIComponent(secret)} HTTP/1.1`,
    );
    expect(hits).toHaveLength(1);
  });

  it("misses nothing and invents nothing: same hits as indexOf for every secret (property, 200 runs)", () => {
    // A 3-letter alphabet makes near-misses (a secret's first 8 characters without the rest) common.
    const chars = fc.constantFrom("a", "b", "c");
    const word = (min: number, max: number) =>
      fc.array(chars, { minLength: min, maxLength: max }).map((a) => a.join(""));
    fc.assert(
      fc.property(
        fc.uniqueArray(word(MIN_SECRET_LENGTH, 12), { minLength: 1, maxLength: 5 }),
        fc.array(fc.oneof(word(0, 6), fc.nat(4)), { maxLength: 20 }),
        (values, parts) => {
          const secrets = values.map((value, i) => ({ kind: `k${i}`, value }));
          // Text from random filler and whole secrets (a number picks one), so real hits occur too.
          const text = parts.map((p) => (typeof p === "number" ? values[p % values.length]! : p)).join("");
          expect(sorted(new SecretMatcher(secrets).find(text))).toEqual(sorted(bruteForce(text, secrets)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a clean text has no hit; an empty matcher finds nothing", () => {
    expect(
      new SecretMatcher([{ kind: "agent token", value: token }]).find("prat_ and nothing else ".repeat(100)),
    ).toEqual([]);
    expect(new SecretMatcher([]).find(token)).toEqual([]);
  });

  it("refuses a secret shorter than the hash window", () => {
    expect(() => new SecretMatcher([{ kind: "password", value: "short" }])).toThrow(SecretListError);
  });
});

describe("parseSecretList", () => {
  it("reads JSON lines, drops duplicates and the documented demo password", () => {
    const text = [
      line("agent token", "prat_aaaaaaaaaa"),
      "",
      line("agent token", "prat_aaaaaaaaaa"),
      line("password", DOCUMENTED_DEMO_PASSWORD),
      line("password hash", "test:01:abcdef"),
    ].join("\n");
    expect(parseSecretList(text)).toEqual([
      { kind: "agent token", value: "prat_aaaaaaaaaa" },
      { kind: "password hash", value: "test:01:abcdef" },
    ]);
  });

  it("a malformed line or a too-short value is an error naming the line", () => {
    expect(() => parseSecretList("not json")).toThrow(/line 1 .*not JSON/);
    expect(() => parseSecretList(`${line("a", "abcdefghij")}\n{"kind":"x"}`)).toThrow(/line 2 .*"value"/);
    expect(() => parseSecretList(line("password", "abc"))).toThrow(/line 1: a password of 3 characters is too short/);
  });

  it("masks a secret to its first 4 characters and its length", () => {
    expect(maskSecret("abcdefghijkl")).toBe("abcd… (12 characters)");
  });
});
