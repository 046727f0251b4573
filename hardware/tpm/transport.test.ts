import { describe, expect, it } from "vitest";
import { openTpmDevice } from "./transport.ts";

describe("openTpmDevice", () => {
  it("says the machine has no TPM 2.0, and what to do, when the device is missing", async () => {
    const error = await openTpmDevice("/dev/liken-no-such-tpm").catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "refused", reason: "NoTpm" });
    expect((error as Error).message).toBe(
      "/dev/liken-no-such-tpm does not exist: the kernel drives no TPM 2.0 on this machine (turn the TPM on in the firmware's setup, or install without [encryption] tpm)",
    );
  });
});
