// unsealSecret against a scripted TPM: what a real one does only by chance (a PCR extended
// between PolicyPCR and Unseal) on demand.
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./constants.ts";
import { build } from "./marshal.ts";
import { unsealSecret } from "./seal.ts";
import { TpmError } from "./tpm-error.ts";

const SECRET = Buffer.from("the passphrase");
const SEALED = {
  bank: "sha256",
  pcrs: [7],
  public: Buffer.from("0000", "hex").toString("base64"),
  private: Buffer.from("0000", "hex").toString("base64"),
} as const;

/** A TPM that answers each command with success, and Unseal with `unseals` in turn. */
function scriptedTpm(unseals: readonly number[]) {
  const left = [...unseals];
  const sent: string[] = [];
  const names = new Map<number, string>(
    Object.entries(COMMANDS).map(([name, code]) => [code, name]),
  );
  const answer = (tag: number, body: Buffer, code = 0) =>
    build((w) =>
      w
        .u16(tag)
        .u32(10 + body.length)
        .u32(code)
        .raw(body),
    );
  let next = 0x80000000;
  return {
    sent,
    tpm: {
      async transmit(command: Buffer) {
        const name = names.get(command.readUInt32BE(6))!;
        sent.push(name);
        const withHandle = (h: number) => build((w) => w.u32(h).u32(0));
        switch (name) {
          case "TPM2_CreatePrimary":
          case "TPM2_Load":
            return answer(0x8002, withHandle(next++));
          case "TPM2_StartAuthSession":
            return answer(
              0x8001,
              build((w) => w.u32(0x03000000 + next++).u16(0)),
            );
          case "TPM2_Unseal": {
            const code = left.shift() ?? 0;
            return code
              ? answer(0x8001, Buffer.alloc(0), code)
              : answer(
                  0x8002,
                  build((w) => w.u32(2 + SECRET.length).sized(SECRET)),
                );
          }
          default:
            return answer(0x8001, Buffer.alloc(0));
        }
      },
      close: async () => undefined,
    },
  };
}

describe("unsealSecret", () => {
  it("starts a new policy session when a PCR changed between PolicyPCR and Unseal", async () => {
    const { tpm, sent } = scriptedTpm([0x128]);
    expect(await unsealSecret(tpm, SEALED)).toEqual(SECRET);
    expect(sent.filter((name) => name === "TPM2_StartAuthSession")).toHaveLength(2);
  });

  it("gives up after three such races, and flushes every handle it made", async () => {
    const { tpm, sent } = scriptedTpm([0x128, 0x128, 0x128]);
    const error = await unsealSecret(tpm, SEALED).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TpmError);
    expect(error).toMatchObject({ reason: "Failed", code: 0x128 });
    // the primary, the object and three sessions
    expect(sent.filter((name) => name === "TPM2_FlushContext")).toHaveLength(5);
  });
});
