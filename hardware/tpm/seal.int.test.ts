// The TPM client against swtpm (Debian's package) on the host: each test a TPM of its own
// (a state folder; the same folder is the same TPM after a restart, a new one another
// machine's), stopped after.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSwtpm } from "../../testing/swtpm.ts";
import { extendPcr, keepOnlySha1Bank } from "../../testing/tpm-pcr.ts";
import { connectTpmSocket } from "../../testing/tpm-socket.ts";
import { createPrimary, load } from "./commands.ts";
import { TPM_RH_OWNER } from "./constants.ts";
import { build } from "./marshal.ts";
import { tpmProperties } from "./properties.ts";
import { type SealedSecret, sealSecret, unsealSecret } from "./seal.ts";
import { STORAGE_PRIMARY_TEMPLATE } from "./templates.ts";
import { TpmError } from "./tpm-error.ts";
import type { TpmTransport } from "./transport.ts";
import { EMPTY_PASSWORD, execute } from "./wire.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-tpm-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `use` with the TPM whose state is the folder `name`, started and stopped around it. */
async function withTpm<T>(name: string, use: (tpm: TpmTransport) => Promise<T>): Promise<T> {
  const swtpm = await startSwtpm(join(dir, name), "host");
  try {
    const tpm = await connectTpmSocket(swtpm.dataSocket!);
    try {
      return await use(tpm);
    } finally {
      await tpm.close();
    }
  } finally {
    await swtpm.stop();
  }
}

const SECRET = Buffer.from("6f0c2a19e4b7d35a8c21f0e9b6d4a7c3", "hex");
const PASSPHRASE = Buffer.concat([SECRET, SECRET]);

async function unsealError(tpm: TpmTransport, sealed: SealedSecret): Promise<TpmError> {
  const error = await unsealSecret(tpm, sealed).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TpmError);
  return error as TpmError;
}

describe("a secret sealed to PCR 7", () => {
  it("unseals on the same TPM, and the sealed blob holds no trace of it", async () => {
    await withTpm("same", async (tpm) => {
      const sealed = await sealSecret(tpm, PASSPHRASE, [7]);
      expect(sealed).toMatchObject({ bank: "sha256", pcrs: [7] });
      expect(await unsealSecret(tpm, sealed)).toEqual(PASSPHRASE);
      const json = JSON.stringify(sealed);
      const blobs = Buffer.concat([
        Buffer.from(sealed.public, "base64"),
        Buffer.from(sealed.private, "base64"),
      ]);
      for (const form of [SECRET.toString("hex"), SECRET.toString("base64")])
        expect(json).not.toContain(form);
      expect(blobs.includes(SECRET)).toBe(false);
    });
  });

  it("does not unseal once PCR 7 changed: PcrChanged, naming PCR 7", async () => {
    await withTpm("pcr7", async (tpm) => {
      const sealed = await sealSecret(tpm, PASSPHRASE, [7]);
      await extendPcr(tpm, 7, Buffer.from("Secure Boot turned off"));
      const error = await unsealError(tpm, sealed);
      expect(error.reason).toBe("PcrChanged");
      expect(error.message).toBe(
        "TPM2_Unseal answered 0x99d (the policy failed: PCR 7 is not what it was when the key was sealed)",
      );
    });
  });

  it("still unseals when another PCR (8) changed", async () => {
    await withTpm("pcr8", async (tpm) => {
      const sealed = await sealSecret(tpm, PASSPHRASE, [7]);
      await extendPcr(tpm, 8, Buffer.from("another kernel command line"));
      expect(await unsealSecret(tpm, sealed)).toEqual(PASSPHRASE);
    });
  });

  it("does not unseal on another TPM: its Load refuses the blob, OtherTpm", async () => {
    const sealed = await withTpm("first", (tpm) => sealSecret(tpm, PASSPHRASE, [7]));
    await withTpm("second", async (tpm) => {
      const error = await unsealError(tpm, sealed);
      expect(error).toMatchObject({ reason: "OtherTpm", command: "TPM2_Load" });
      expect(error.message).toMatch(/^TPM2_Load answered 0x1df \(TPM_RC_INTEGRITY/);
    });
  });

  it("unseals after the TPM restarts (the machine rebooted)", async () => {
    const measure = (tpm: TpmTransport) => extendPcr(tpm, 7, Buffer.from("Secure Boot on, db"));
    const sealed = await withTpm("reboot", async (tpm) => {
      await measure(tpm);
      return sealSecret(tpm, PASSPHRASE, [7]);
    });
    // The PCRs start again from zero, and the firmware measures the same state again.
    await withTpm("reboot", async (tpm) => {
      expect((await unsealError(tpm, sealed)).reason).toBe("PcrChanged");
      await measure(tpm);
      expect(await unsealSecret(tpm, sealed)).toEqual(PASSPHRASE);
    });
  });

  it("is never released by its empty password: only the policy opens it", async () => {
    await withTpm("password", async (tpm) => {
      const sealed = await sealSecret(tpm, PASSPHRASE, [7]);
      const primary = await execute(tpm, createPrimary(TPM_RH_OWNER, STORAGE_PRIMARY_TEMPLATE));
      const item = await execute(
        tpm,
        load(primary.handle, {
          public: Buffer.from(sealed.public, "base64"),
          private: Buffer.from(sealed.private, "base64"),
        }),
      );
      const answer = await execute(tpm, {
        name: "TPM2_Unseal",
        handles: [item.handle],
        sessions: [EMPTY_PASSWORD],
        parameters: Buffer.alloc(0),
        responseHandles: 0,
        read: (_, r) => r.sized(),
      }).catch((e: unknown) => e);
      expect(answer).toBeInstanceOf(TpmError);
      expect((answer as TpmError).message).toMatch(/TPM_RC_AUTH_UNAVAILABLE/);
    });
  });

  it("leaves no object or session loaded, after an unseal that failed too", async () => {
    await withTpm("handles", async (tpm) => {
      const sealed = await sealSecret(tpm, PASSPHRASE, [7]);
      await unsealSecret(tpm, sealed);
      await extendPcr(tpm, 7, Buffer.from("changed"));
      await unsealError(tpm, sealed);
      expect(await loadedHandles(tpm, 0x80000000)).toEqual([]); // transient objects
      expect(await loadedHandles(tpm, 0x03000000)).toEqual([]); // policy sessions
    });
  });
});

describe("a TPM without its SHA-256 bank", () => {
  it("refuses to seal, rather than seal to no PCR at all", async () => {
    await withTpm("sha1", keepOnlySha1Bank);
    const error = await withTpm("sha1", (tpm) => sealSecret(tpm, PASSPHRASE, [7])).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe(
      "the TPM keeps no SHA-256 value of PCR 7 (turn the TPM's SHA-256 PCR bank on in the firmware's setup)",
    );
  });
});

describe("tpmProperties", () => {
  it("names swtpm's manufacturer, vendor and firmware", async () => {
    const identity = await withTpm("properties", (tpm) => tpmProperties(tpm));
    expect(identity.manufacturer).toBe("IBM");
    expect(identity.vendor).toMatch(/^SW\s+TPM$/);
    expect(identity.firmware).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
});

/** TPM2_GetCapability(TPM_CAP_HANDLES) (Part 3, 30.2): the handles loaded in a range. */
function loadedHandles(tpm: TpmTransport, first: number): Promise<number[]> {
  return execute(tpm, {
    name: "TPM2_GetCapability",
    handles: [],
    sessions: [],
    parameters: build((w) => w.u32(1).u32(first).u32(64)),
    responseHandles: 0,
    read: (_, r) => {
      r.u8();
      r.u32();
      const handles: number[] = [];
      for (let n = r.u32(); n > 0; n--) {
        const handle = r.u32();
        if (handle >>> 24 === first >>> 24) handles.push(handle);
      }
      return handles;
    },
  });
}
