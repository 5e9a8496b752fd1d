import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_NAME_MAX, modelNameProblem, suggestModelName } from "./model-name";

describe("modelNameProblem", () => {
  it("accepts the zoo's names and ordinary ones", () => {
    for (const name of ["tiny-cnn", "mobilenet-v2", "resnet50", "bert-base", "gpt2-small", "My_Model.v2", "a"])
      expect(modelNameProblem(name)).toBeNull();
  });

  it("refuses what would break a URL path segment or a log line, naming the rule", () => {
    for (const name of [
      "../etc/passwd",
      "a/b",
      "name with spaces",
      "résumé",
      "emoji😀",
      'quote"d',
      "-leading",
      ".hidden",
      "tab\tname",
      "new\nline",
      "100%",
    ]) {
      expect(modelNameProblem(name)).toMatch(/only letters, digits/);
    }
    expect(modelNameProblem("")).toMatch(/empty/);
    // 65 = MODEL_NAME_MAX + 1 characters.
    expect(modelNameProblem("a".repeat(MODEL_NAME_MAX + 1))).toMatch(/65 characters long; at most 64/);
    expect(modelNameProblem("a".repeat(MODEL_NAME_MAX))).toBeNull();
  });
});

describe("suggestModelName", () => {
  it("turns a file name into a valid name", () => {
    expect(suggestModelName("My Model (v2).onnx")).toBe("my-model-v2");
    expect(suggestModelName("C:\\models\\Résumé_Net.ONNX")).toBe("resume_net");
    expect(suggestModelName("/tmp/tiny-cnn.onnx")).toBe("tiny-cnn");
    expect(suggestModelName("..onnx")).toBe("");
    expect(suggestModelName("😀.onnx")).toBe("");
  });

  it("property: whatever the file name, the suggestion is empty or a valid model name (200 runs)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: "grapheme" }), (fileName) => {
        const suggestion = suggestModelName(fileName);
        expect(suggestion === "" || modelNameProblem(suggestion) === null).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
