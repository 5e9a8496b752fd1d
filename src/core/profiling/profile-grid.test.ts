import { describe, expect, it } from "vitest";
import { DEFAULT_PROFILE_MAX_BATCH, PROFILE_BATCH_LIMIT, profileBatchesUpTo } from "./profile-grid";

describe("the profile grid's batch axis", () => {
  it("is the powers of two not above the largest batch", () => {
    expect(profileBatchesUpTo(64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(profileBatchesUpTo(100)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(profileBatchesUpTo(1)).toEqual([1]);
  });

  it("defaults inside its own limit", () => {
    expect(profileBatchesUpTo(PROFILE_BATCH_LIMIT)).toContain(DEFAULT_PROFILE_MAX_BATCH);
  });
});
