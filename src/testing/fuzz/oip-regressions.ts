// Seeds that found bugs in the agent's data plane (the first 10,000-request run, fuzzPlan(10_000, 1), against
// commit 7d9bfe6). Each is replayed before every fuzz run; the unit test checks each still makes the same variant.
import type { OipFuzzClass } from "./oip-mutator";

export interface OipRegression {
  cls: OipFuzzClass;
  seed: number;
  variant: string;
  found: string;
}

export const OIP_REGRESSIONS: OipRegression[] = [
  {
    cls: "deep-nesting",
    seed: 87,
    variant: "one value deeply nested",
    found: "500 Maximum call stack size exceeded (recursive flatten)",
  },
  {
    cls: "deep-nesting",
    seed: 654,
    variant: "data deeper than the shape",
    found: "500 Maximum call stack size exceeded",
  },
  {
    cls: "deep-nesting",
    seed: 33,
    variant: "one value deeply nested",
    found: "200: data nested deeper than the shape was accepted",
  },
  {
    cls: "deep-nesting",
    seed: 267,
    variant: "data deeper than the shape",
    found: "200: data nested deeper than the shape was accepted",
  },
  {
    cls: "long-unicode-names",
    seed: 34,
    variant: "malformed percent-encoding in the model name",
    found: "500 URI malformed (decodeURIComponent)",
  },
  {
    cls: "long-unicode-names",
    seed: 142,
    variant: "absolute-form target with a malformed host",
    found: "500 Invalid URL (new URL)",
  },
  {
    cls: "long-unicode-names",
    seed: 25,
    variant: "request target beyond the header limit",
    found: "431 without a JSON body (Node's default clientError)",
  },
  {
    cls: "long-unicode-names",
    seed: 151,
    variant: "request target beyond the header limit",
    found: "the 431 lost to a connection reset (no lingering close)",
  },
  {
    cls: "long-unicode-names",
    seed: 133,
    variant: "raw UTF-8 in the request target",
    found: "400 without a JSON body",
  },
  {
    cls: "long-unicode-names",
    seed: 340,
    variant: "unicode Inference-Header-Content-Length",
    found: "400 without a JSON body (invalid header character)",
  },
  {
    cls: "wrong-content-type",
    seed: 8,
    variant: "compressed body that is not",
    found: "200: Content-Encoding ignored",
  },
  {
    cls: "wrong-content-type",
    seed: 17,
    variant: "Content-Type application/json; charset=utf-16",
    found: "200: charset ignored",
  },
  {
    cls: "wrong-content-type",
    seed: 71,
    variant: "Content-Type multipart/form-data; boundary=fuzz",
    found: "200: Content-Type ignored",
  },
  { cls: "truncated-body", seed: 9, variant: "chunked upload stops mid-chunk", found: "400 without a JSON body" },
  {
    cls: "truncated-body",
    seed: 36,
    variant: "upload stops before Content-Length",
    found: "400 without a JSON body; the agent counted a 500",
  },
  {
    cls: "truncated-body",
    seed: 45,
    variant: "Content-Length shorter than the body",
    found: "400 without a JSON body",
  },
];
