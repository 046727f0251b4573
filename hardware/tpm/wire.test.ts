import { describe, expect, it } from "vitest";
import {
  createPrimary,
  flushContext,
  load,
  policyPcr,
  startAuthSession,
  unseal,
} from "./commands.ts";
import { TPM_RH_OWNER, TPM_SE_POLICY } from "./constants.ts";
import { STORAGE_PRIMARY_TEMPLATE, sealedObjectTemplate } from "./templates.ts";
import { TpmError } from "./tpm-error.ts";
import { EMPTY_PASSWORD, execute, marshalCommand, parseResponse, policySession } from "./wire.ts";

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ""), "hex");
const SESSION = 0x03000000;
const ITEM = 0x80000001;

// Each expected command spelled from TCG TPM 2.0 Library Part 3's command table: header
// (tag, commandSize, commandCode), handles, then, with a session, authorizationSize and
// TPMS_AUTH_COMMAND (Part 1, "Command/Response Structure"), then the parameters.
describe("the commands' bytes", () => {
  it("TPM2_PolicyPCR of PCR 7 with the current values (Part 3, 23.7)", () => {
    expect(marshalCommand(policyPcr(SESSION, [7]))).toEqual(
      hex(`
        8001 0000001a 0000017f
        03000000
        0000
        00000001 000b 03 800000`),
      // pcrDigest empty; TPML_PCR_SELECTION: one bank, SHA-256, 3 bytes, PCR 7 = bit 7 of byte 0
    );
  });

  it("TPM2_Unseal with a policy session: no HMAC, continueSession clear (Part 3, 12.7)", () => {
    expect(marshalCommand(unseal(ITEM, policySession(SESSION)))).toEqual(
      hex(`
        8002 0000001b 0000015e
        80000001
        00000009 03000000 0000 00 0000`),
    );
  });

  it("TPM2_StartAuthSession, policy, unsalted and unbound, SHA-256 (Part 3, 11.1)", () => {
    expect(marshalCommand(startAuthSession(TPM_SE_POLICY, Buffer.alloc(16, 0xaa)))).toEqual(
      hex(`
        8001 0000002b 00000176
        40000007 40000007
        0010 ${"aa".repeat(16)}
        0000
        01
        0010
        000b`),
    );
  });

  it("TPM2_FlushContext takes its handle as a parameter (Part 3, 28.4)", () => {
    expect(marshalCommand(flushContext(0x80000000))).toEqual(
      hex("8001 0000000e 00000165 80000000"),
    );
  });

  it("TPM2_CreatePrimary of the TCG's ECC storage key under the owner with the empty password (Part 3, 24.1)", () => {
    const template = `
      0023 000b 00030472
      0000
      0006 0080 0043 0010 0003 0010
      0020 ${"00".repeat(32)} 0020 ${"00".repeat(32)}`;
    expect(STORAGE_PRIMARY_TEMPLATE).toEqual(hex(template));
    expect(marshalCommand(createPrimary(TPM_RH_OWNER, STORAGE_PRIMARY_TEMPLATE))).toEqual(
      hex(`
        8002 00000083 00000131
        40000001
        00000009 40000009 0000 00 0000
        0004 0000 0000
        005a ${template}
        0000
        00000000`),
    );
  });

  it("the sealed object: KEYEDHASH, fixedTPM|fixedParent|noDA and no userWithAuth, the policy as authPolicy", () => {
    const policy = Buffer.alloc(32, 0x11);
    expect(sealedObjectTemplate(policy)).toEqual(
      hex(`0008 000b 00000412 0020 ${"11".repeat(32)} 0010 0000`),
    );
  });

  it("TPM2_Load sends the blob's TPM2B_PRIVATE and TPM2B_PUBLIC as they came (Part 3, 12.2)", () => {
    const blob = { private: hex("0002 abcd"), public: hex("0001 ef") };
    expect(marshalCommand(load(ITEM, blob))).toEqual(
      hex(`8002 00000022 00000157 80000001 00000009 40000009 0000 00 0000 0002abcd 0001ef`),
    );
  });
});

describe("the answers", () => {
  it("reads Unseal's data past the parameter size, before the session's acknowledgement", () => {
    const response = hex(`
      8002 00000019 00000000
      00000006 0004 73656372
      0000 00 0000`);
    expect(parseResponse(unseal(ITEM, policySession(SESSION)), response)).toEqual(
      Buffer.from("secr"),
    );
  });

  it("names a policy that failed after a PCR changed: PcrChanged, with the code", () => {
    const error = catchError(() =>
      parseResponse(unseal(ITEM, EMPTY_PASSWORD), hex("8001 0000000a 0000099d")),
    );
    expect(error).toBeInstanceOf(TpmError);
    expect(error).toMatchObject({ command: "TPM2_Unseal", code: 0x99d, reason: "PcrChanged" });
    expect(error.message).toBe(
      "TPM2_Unseal answered 0x99d (the policy failed: the PCRs are not what they were when the key was sealed)",
    );
  });

  it("names a blob another TPM sealed: Load's integrity check fails, OtherTpm", () => {
    const blob = { private: hex("0000"), public: hex("0000") };
    const error = catchError(() => parseResponse(load(ITEM, blob), hex("8001 0000000a 000001df")));
    expect(error).toMatchObject({ command: "TPM2_Load", reason: "OtherTpm" });
    expect(error.message).toMatch(
      /^TPM2_Load answered 0x1df \(TPM_RC_INTEGRITY on parameter 1: .*another machine's TPM/,
    );
  });

  it("names the lockout, and any other code as Failed with its spec name", () => {
    expect(
      catchError(() => parseResponse(flushContext(1), hex("8001 0000000a 00000921"))),
    ).toMatchObject({
      reason: "Lockout",
    });
    const other = catchError(() => parseResponse(flushContext(1), hex("8001 0000000a 0000018b")));
    expect(other).toMatchObject({ reason: "Failed", code: 0x18b });
    expect(other.message).toBe(
      "TPM2_FlushContext answered 0x18b (TPM_RC_HANDLE on handle 1: the handle is not right)",
    );
  });

  it("refuses an answer shorter than its header says", () => {
    const error = catchError(() => parseResponse(flushContext(1), hex("8001 00000010 00000000")));
    expect(error).toMatchObject({ reason: "Failed", code: undefined });
    expect(error.message).toMatch(/^TPM2_FlushContext got no answer \(the answer does not parse/);
  });

  it("sends the command again while the TPM says TPM_RC_RETRY", async () => {
    const answers = [hex("8001 0000000a 00000922"), hex("8001 0000000a 00000000")];
    const sent: Buffer[] = [];
    const tpm = {
      transmit: async (command: Buffer) => {
        sent.push(command);
        return answers.shift()!;
      },
    };
    await execute(tpm, flushContext(0x80000000));
    expect(sent).toHaveLength(2);
  });
});

function catchError(act: () => unknown): TpmError {
  try {
    act();
  } catch (error) {
    return error as TpmError;
  }
  throw new Error("no error");
}
