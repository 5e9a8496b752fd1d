// The mutator's promise: every request it makes is refused by the agent, for a reason it can name. Checked here
// in-process with the agent's own parsing (route, content type, parseInferRequest) plus the HTTP framing rules a
// Node server applies, so the live fuzz run (oip-fuzz.int.test.ts) tests the server, not the mutator.
import { describe, expect, it } from "vitest";
import { OipError, parseInferRequest } from "../../../apps/agent/src/oip-codec";
import { inferContentProblem } from "../../../apps/agent/src/oip-server";
import type { ModelMetadata } from "../../../apps/agent/src/served-model";
import { mutateOipRequest, OIP_FUZZ_CLASSES, validOipRequest, type OipModelSpec } from "./oip-mutator";
import { OIP_REGRESSIONS } from "./oip-regressions";
import type { RawHttpRequest } from "./raw-http";

const spec: OipModelSpec = {
  name: "tiny-cnn",
  inputs: [{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }],
  outputs: [{ name: "logits" }],
};
const metadata: ModelMetadata = {
  name: "tiny-cnn",
  version: "1",
  inputs: [
    {
      name: "input",
      datatype: "FP32",
      shape: [-1, 3, 32, 32],
      symbolicDims: ["batch", undefined, undefined, undefined],
    },
  ],
  outputs: [{ name: "logits", datatype: "FP32", shape: [-1, 10], symbolicDims: ["batch", undefined] }],
};
const NODE_MAX_HEADER_BYTES = 16 * 1024;

/** Why the agent must refuse this request, or undefined when it must accept it. */
function refusal(request: RawHttpRequest): string | undefined {
  const header = (name: string) => request.headers.find(([k]) => k.toLowerCase() === name)?.[1];
  if (request.sendBodyBytes !== undefined && request.sendBodyBytes < request.body.length)
    return "upload cut off before its end";
  if (Buffer.byteLength(request.path) > NODE_MAX_HEADER_BYTES) return "request line beyond Node's header limit";
  if (/[^\x21-\x7e]/.test(request.path)) return "non-ASCII or control character in the request target";
  let url: URL;
  try {
    url = new URL(request.path, "http://agent");
  } catch {
    return "request target is not a URL";
  }
  if (url.host !== "agent") return "request target names another host";
  const match = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?\/infer$/.exec(url.pathname);
  if (!match) return "not an infer route";
  let name: string;
  try {
    name = decodeURIComponent(match[1]!);
  } catch {
    return "malformed percent-encoding";
  }
  if (name !== spec.name) return "unknown model";
  if (match[2] !== undefined && match[2] !== "1") return "unknown version";
  const content = inferContentProblem({
    "content-type": header("content-type"),
    "content-encoding": header("content-encoding"),
  });
  if (content) return content;
  const declared = header("content-length");
  const body = declared === undefined ? request.body : request.body.subarray(0, Number(declared));
  try {
    parseInferRequest(body, header("inference-header-content-length"), metadata);
  } catch (error) {
    if (error instanceof OipError && error.status >= 400 && error.status < 500) return error.message;
    throw error;
  }
  return undefined;
}

describe("mutateOipRequest", () => {
  it("makes requests the agent's parsing accepts when asked for valid ones (so the oracle below can say no)", () => {
    for (let seed = 0; seed < 20; seed++) {
      expect(refusal(validOipRequest(seed, spec, seed % 2 === 0))).toBeUndefined();
    }
  });

  it("makes every class's requests refusable for a named reason (40 seeds × 9 classes)", () => {
    for (const cls of OIP_FUZZ_CLASSES) {
      for (let seed = 0; seed < 40; seed++) {
        const request = mutateOipRequest(cls, seed, spec);
        expect({ cls, seed, variant: request.variant, refused: refusal(request) !== undefined }).toEqual({
          cls,
          seed,
          variant: request.variant,
          refused: true,
        });
      }
    }
  });

  it("is deterministic: the same (class, seed) gives the same bytes; another seed other bytes", () => {
    for (const cls of OIP_FUZZ_CLASSES) {
      const a = mutateOipRequest(cls, 1234, spec);
      const b = mutateOipRequest(cls, 1234, spec);
      expect(b.body.equals(a.body)).toBe(true);
      expect({ ...b, body: undefined }).toEqual({ ...a, body: undefined });
      const others = [1235, 1236, 1237].map((seed) => mutateOipRequest(cls, seed, spec));
      expect(
        others.some(
          (o) => !o.body.equals(a.body) || o.path !== a.path || JSON.stringify(o.headers) !== JSON.stringify(a.headers),
        ),
      ).toBe(true);
    }
  });

  it("spreads each class over several variants", () => {
    for (const cls of OIP_FUZZ_CLASSES) {
      const variants = new Set(Array.from({ length: 60 }, (_, seed) => mutateOipRequest(cls, seed, spec).variant));
      expect({ cls, enough: variants.size >= 4 }).toEqual({ cls, enough: true });
    }
  });

  it("still makes each kept regression seed's variant (a changed mutator would silently drop them)", () => {
    for (const r of OIP_REGRESSIONS)
      expect({ ...r, variant: mutateOipRequest(r.cls, r.seed, spec).variant }).toEqual(r);
  });

  it("names the bad parameter when the model cannot be fuzzed", () => {
    expect(() => mutateOipRequest("bad-json", 1, { ...spec, inputs: [] })).toThrow(/model.inputs/);
    expect(() =>
      mutateOipRequest("bad-json", 1, { ...spec, inputs: [{ name: "x", datatype: "FLOAT", shape: [1] }] }),
    ).toThrow(/model.inputs/);
  });
});
