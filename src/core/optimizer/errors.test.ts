import { describe, expect, it } from "vitest";
import { OptimizerInputError } from "./errors";

describe("OptimizerInputError", () => {
  it("carries a code and names the parameter in its message", () => {
    const error = new OptimizerInputError("invalid_cores", "cores", "must be an integer in 1…4096, got 0");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("OptimizerInputError");
    expect(error.code).toBe("invalid_cores");
    expect(error.parameter).toBe("cores");
    expect(error.message).toBe("cores: must be an integer in 1…4096, got 0");
  });
});
