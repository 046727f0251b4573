// The commands the client sends, each a value (wire.ts's TpmCommand) built from its
// arguments: the layouts of TCG TPM 2.0 Library Part 3, in the section each names.
import { TPM_ALG_NULL, TPM_ALG_SHA256, TPM_CAP_TPM_PROPERTIES, TPM_RH_NULL } from "./constants.ts";
import { build } from "./marshal.ts";
import { type AuthSession, EMPTY_PASSWORD, type TpmCommand } from "./wire.ts";

/** An object in the TPM, by its transient handle. */
export interface LoadedObject {
  readonly handle: number;
}

/** Part 3, 24.1 TPM2_CreatePrimary: a primary object from the hierarchy's seed and `template`. */
export function createPrimary(hierarchy: number, template: Uint8Array): TpmCommand<LoadedObject> {
  return {
    name: "TPM2_CreatePrimary",
    handles: [hierarchy],
    sessions: [EMPTY_PASSWORD],
    parameters: build(
      (w) =>
        w
          .raw(sensitiveCreate(Buffer.alloc(0)))
          .sized(template)
          .sized(Buffer.alloc(0)) // outsideInfo
          .u32(0), // creationPCR: an empty TPML_PCR_SELECTION
    ),
    responseHandles: 1,
    read: ([handle]) => ({ handle: handle! }),
  };
}

/** A created object: its TPM2B_PRIVATE and TPM2B_PUBLIC whole, sizes included. */
export interface CreatedObject {
  readonly private: Buffer;
  readonly public: Buffer;
}

/** Part 3, 12.1 TPM2_Create: an ordinary object under `parent`, holding `data` when given. */
export function create(
  parent: number,
  template: Uint8Array,
  data: Uint8Array,
): TpmCommand<CreatedObject> {
  return {
    name: "TPM2_Create",
    handles: [parent],
    sessions: [EMPTY_PASSWORD],
    parameters: build((w) =>
      w.raw(sensitiveCreate(data)).sized(template).sized(Buffer.alloc(0)).u32(0),
    ),
    responseHandles: 0,
    read: (_, r) => {
      const outPrivate = Buffer.from(r.sizedWhole());
      const outPublic = Buffer.from(r.sizedWhole());
      return { private: outPrivate, public: outPublic };
    },
  };
}

/** Part 3, 12.2 TPM2_Load: a created object back into the TPM under its parent. */
export function load(parent: number, object: CreatedObject): TpmCommand<LoadedObject> {
  return {
    name: "TPM2_Load",
    handles: [parent],
    sessions: [EMPTY_PASSWORD],
    parameters: build((w) => w.raw(object.private).raw(object.public)),
    responseHandles: 1,
    read: ([handle]) => ({ handle: handle! }),
  };
}

/** Part 3, 12.7 TPM2_Unseal: a sealed data object's data, authorized by `session`. */
export function unseal(item: number, session: AuthSession): TpmCommand<Buffer> {
  return {
    name: "TPM2_Unseal",
    handles: [item],
    sessions: [session],
    parameters: Buffer.alloc(0),
    responseHandles: 0,
    read: (_, r) => Buffer.from(r.sized()),
  };
}

/**
 * Part 3, 11.1 TPM2_StartAuthSession: an unsalted, unbound session (tpmKey and bind
 * TPM_RH_NULL) of `type` (TPM_SE_TRIAL or TPM_SE_POLICY), no parameter encryption
 * (symmetric TPM_ALG_NULL), SHA-256. `nonceCaller` is 16 to 32 bytes.
 */
export function startAuthSession(type: number, nonceCaller: Uint8Array): TpmCommand<number> {
  return {
    name: "TPM2_StartAuthSession",
    handles: [TPM_RH_NULL, TPM_RH_NULL],
    sessions: [],
    parameters: build(
      (w) =>
        w
          .sized(nonceCaller)
          .sized(Buffer.alloc(0)) // encryptedSalt
          .u8(type)
          .u16(TPM_ALG_NULL) // symmetric: TPMT_SYM_DEF with no key bits or mode
          .u16(TPM_ALG_SHA256), // authHash
    ),
    responseHandles: 1,
    read: ([handle]) => handle!,
  };
}

/**
 * Part 3, 23.7 TPM2_PolicyPCR: the session's policy extended with the selected PCRs.
 * An empty `pcrDigest` has the TPM take the PCRs' current values.
 */
export function policyPcr(
  session: number,
  pcrs: readonly number[],
  pcrDigest: Uint8Array = Buffer.alloc(0),
): TpmCommand<void> {
  return {
    name: "TPM2_PolicyPCR",
    handles: [session],
    sessions: [],
    parameters: build((w) => w.sized(pcrDigest).raw(pcrSelection(pcrs))),
    responseHandles: 0,
    read: () => undefined,
  };
}

/** Part 3, 23.19 TPM2_PolicyGetDigest: the session's policy digest so far. */
export function policyGetDigest(session: number): TpmCommand<Buffer> {
  return {
    name: "TPM2_PolicyGetDigest",
    handles: [session],
    sessions: [],
    parameters: Buffer.alloc(0),
    responseHandles: 0,
    read: (_, r) => Buffer.from(r.sized()),
  };
}

/** Part 3, 28.4 TPM2_FlushContext: the handle is a parameter, not in the handle area. */
export function flushContext(handle: number): TpmCommand<void> {
  return {
    name: "TPM2_FlushContext",
    handles: [],
    sessions: [],
    parameters: build((w) => w.u32(handle)),
    responseHandles: 0,
    read: () => undefined,
  };
}

/** The SHA-256 bank's values of the PCRs read, by index. */
export type PcrValues = ReadonlyMap<number, Buffer>;

/**
 * Part 3, 22.4 TPM2_PCR_Read: the SHA-256 values of `pcrs`. A PCR the TPM left out (its
 * bank not active) is absent from the map.
 */
export function pcrRead(pcrs: readonly number[]): TpmCommand<PcrValues> {
  return {
    name: "TPM2_PCR_Read",
    handles: [],
    sessions: [],
    parameters: pcrSelection(pcrs),
    responseHandles: 0,
    read: (_, r) => {
      r.u32(); // pcrUpdateCounter
      const selected: number[] = [];
      for (let banks = r.u32(); banks > 0; banks--) {
        const hash = r.u16();
        const bitmap = r.take(r.u8());
        if (hash === TPM_ALG_SHA256) selected.push(...selectedIn(bitmap));
      }
      const values = new Map<number, Buffer>();
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const value = Buffer.from(r.sized());
        const pcr = selected[i];
        if (pcr !== undefined) values.set(pcr, value);
      }
      return values;
    },
  };
}

/** A TPM property and its value (TPMS_TAGGED_PROPERTY). */
export type TpmProperties = ReadonlyMap<number, number>;

/**
 * Part 3, 30.2 TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES): up to `count` properties from
 * `first` on.
 */
export function getTpmProperties(first: number, count: number): TpmCommand<TpmProperties> {
  return {
    name: "TPM2_GetCapability",
    handles: [],
    sessions: [],
    parameters: build((w) => w.u32(TPM_CAP_TPM_PROPERTIES).u32(first).u32(count)),
    responseHandles: 0,
    read: (_, r) => {
      r.u8(); // moreData
      const capability = r.u32();
      if (capability !== TPM_CAP_TPM_PROPERTIES)
        throw new RangeError(`it holds capability ${capability}, not the TPM properties`);
      const properties = new Map<number, number>();
      for (let count = r.u32(); count > 0; count--) properties.set(r.u32(), r.u32());
      return properties;
    },
  };
}

/** A TPM2B_SENSITIVE_CREATE (Part 2): an empty userAuth, then `data`. */
function sensitiveCreate(data: Uint8Array): Buffer {
  return build((w) => w.sized(build((s) => s.sized(Buffer.alloc(0)).sized(data))));
}

/**
 * A TPML_PCR_SELECTION of one TPMS_PCR_SELECTION: the SHA-256 bank, a 3-byte bitmap where
 * PCR n is bit n % 8 of byte n / 8.
 */
export function pcrSelection(pcrs: readonly number[]): Buffer {
  const bitmap = Buffer.alloc(3);
  for (const pcr of pcrs) bitmap[pcr >> 3]! |= 1 << (pcr & 7);
  return build((w) => w.u32(1).u16(TPM_ALG_SHA256).u8(bitmap.length).raw(bitmap));
}

function selectedIn(bitmap: Buffer): number[] {
  const pcrs: number[] = [];
  for (let pcr = 0; pcr < bitmap.length * 8; pcr++)
    if (bitmap[pcr >> 3]! & (1 << (pcr & 7))) pcrs.push(pcr);
  return pcrs;
}
