// A TPM's response code taken apart (TCG TPM 2.0 Library Part 2, section 6.6; Part 1,
// "Response Code Details"). Format 1 codes (bit 7 set) carry the error in bits 0-5 and,
// in bits 8-11, which handle, session or parameter it is about (bit 6 set: a parameter);
// format 0 codes are the error whole, warnings with bit 11 set.

const RC_VER1 = 0x100;
const RC_FMT1 = 0x080;
const RC_WARN = 0x900;

export const TPM_RC_SUCCESS = 0;
export const TPM_RC_PCR_CHANGED = RC_VER1 + 0x028;
export const TPM_RC_POLICY_FAIL = RC_FMT1 + 0x01d;
export const TPM_RC_INTEGRITY = RC_FMT1 + 0x01f;
export const TPM_RC_YIELDED = RC_WARN + 0x008;
export const TPM_RC_TESTING = RC_WARN + 0x00a;
export const TPM_RC_LOCKOUT = RC_WARN + 0x021;
export const TPM_RC_RETRY = RC_WARN + 0x022;

// Each error's spec name and a few words from its description in Part 2's table.
const FORMAT_0: Readonly<Record<number, readonly [string, string]>> = {
  [RC_VER1 + 0x000]: ["TPM_RC_INITIALIZE", "the TPM was not started (TPM2_Startup)"],
  [RC_VER1 + 0x001]: ["TPM_RC_FAILURE", "the TPM is in failure mode"],
  [RC_VER1 + 0x003]: ["TPM_RC_SEQUENCE", "improper use of a sequence handle"],
  [RC_VER1 + 0x00b]: ["TPM_RC_PRIVATE", "not currently used"],
  [RC_VER1 + 0x019]: ["TPM_RC_HMAC", "not currently used"],
  [RC_VER1 + 0x020]: ["TPM_RC_DISABLED", "the command is disabled"],
  [RC_VER1 + 0x021]: ["TPM_RC_EXCLUSIVE", "the command failed an exclusivity check"],
  [RC_VER1 + 0x024]: ["TPM_RC_AUTH_TYPE", "the authorization handle is not right"],
  [RC_VER1 + 0x025]: ["TPM_RC_AUTH_MISSING", "the command needs an authorization session"],
  [RC_VER1 + 0x026]: ["TPM_RC_POLICY", "the policy failed"],
  [RC_VER1 + 0x027]: ["TPM_RC_PCR", "the PCR check failed"],
  [TPM_RC_PCR_CHANGED]: ["TPM_RC_PCR_CHANGED", "a PCR changed since the policy was checked"],
  [RC_VER1 + 0x02d]: ["TPM_RC_UPGRADE", "the TPM is in field upgrade mode"],
  [RC_VER1 + 0x02e]: ["TPM_RC_TOO_MANY_CONTEXTS", "no more context slots"],
  [RC_VER1 + 0x02f]: ["TPM_RC_AUTH_UNAVAILABLE", "the object's authorization is unavailable"],
  [RC_VER1 + 0x030]: ["TPM_RC_REBOOT", "the TPM must be reset (TPM_Init and Startup)"],
  [RC_VER1 + 0x031]: ["TPM_RC_UNBALANCED", "the protection algorithms are unbalanced"],
  [RC_VER1 + 0x042]: ["TPM_RC_COMMAND_SIZE", "the command's size is not right"],
  [RC_VER1 + 0x043]: ["TPM_RC_COMMAND_CODE", "the TPM does not know the command"],
  [RC_VER1 + 0x044]: ["TPM_RC_AUTHSIZE", "the authorization area's size is not right"],
  [RC_VER1 + 0x045]: ["TPM_RC_AUTH_CONTEXT", "the command takes no authorization session"],
  [RC_VER1 + 0x046]: ["TPM_RC_NV_RANGE", "an NV offset is out of range"],
  [RC_VER1 + 0x047]: ["TPM_RC_NV_SIZE", "the NV index's size is not right"],
  [RC_VER1 + 0x048]: ["TPM_RC_NV_LOCKED", "the NV index is locked"],
  [RC_VER1 + 0x049]: ["TPM_RC_NV_AUTHORIZATION", "the NV index's authorization failed"],
  [RC_VER1 + 0x04a]: ["TPM_RC_NV_UNINITIALIZED", "the NV index was never written"],
  [RC_VER1 + 0x04b]: ["TPM_RC_NV_SPACE", "no NV space left"],
  [RC_VER1 + 0x04c]: ["TPM_RC_NV_DEFINED", "the NV index is already defined"],
  [RC_VER1 + 0x050]: ["TPM_RC_BAD_CONTEXT", "the context could not be loaded"],
  [RC_VER1 + 0x051]: ["TPM_RC_CPHASH", "the cpHash is not right"],
  [RC_VER1 + 0x052]: ["TPM_RC_PARENT", "the handle is not a parent"],
  [RC_VER1 + 0x053]: ["TPM_RC_NEEDS_TEST", "a self-test of a function is needed first"],
  [RC_VER1 + 0x054]: ["TPM_RC_NO_RESULT", "the function produced no result"],
  [RC_VER1 + 0x055]: ["TPM_RC_SENSITIVE", "the sensitive area did not unmarshal"],
};

const FORMAT_1: Readonly<Record<number, readonly [string, string]>> = {
  [RC_FMT1 + 0x001]: ["TPM_RC_ASYMMETRIC", "the asymmetric algorithm is not supported"],
  [RC_FMT1 + 0x002]: ["TPM_RC_ATTRIBUTES", "inconsistent attributes"],
  [RC_FMT1 + 0x003]: ["TPM_RC_HASH", "the hash algorithm is not supported here"],
  [RC_FMT1 + 0x004]: ["TPM_RC_VALUE", "a value is out of range"],
  [RC_FMT1 + 0x005]: ["TPM_RC_HIERARCHY", "the hierarchy is not enabled"],
  [RC_FMT1 + 0x007]: ["TPM_RC_KEY_SIZE", "the key size is not supported"],
  [RC_FMT1 + 0x008]: ["TPM_RC_MGF", "the mask generation function is not supported"],
  [RC_FMT1 + 0x009]: ["TPM_RC_MODE", "the mode of operation is not supported"],
  [RC_FMT1 + 0x00a]: ["TPM_RC_TYPE", "the type is not right"],
  [RC_FMT1 + 0x00b]: ["TPM_RC_HANDLE", "the handle is not right"],
  [RC_FMT1 + 0x00c]: ["TPM_RC_KDF", "the key derivation function is not supported"],
  [RC_FMT1 + 0x00d]: ["TPM_RC_RANGE", "a value is out of range"],
  [RC_FMT1 + 0x00e]: ["TPM_RC_AUTH_FAIL", "the authorization failed"],
  [RC_FMT1 + 0x00f]: ["TPM_RC_NONCE", "the nonce's size is not right"],
  [RC_FMT1 + 0x010]: ["TPM_RC_PP", "physical presence is needed"],
  [RC_FMT1 + 0x012]: ["TPM_RC_SCHEME", "the scheme is not supported"],
  [RC_FMT1 + 0x015]: ["TPM_RC_SIZE", "a size is not right"],
  [RC_FMT1 + 0x016]: ["TPM_RC_SYMMETRIC", "the symmetric algorithm is not supported"],
  [RC_FMT1 + 0x017]: ["TPM_RC_TAG", "the tag is not right"],
  [RC_FMT1 + 0x018]: ["TPM_RC_SELECTOR", "a union selector is not right"],
  [RC_FMT1 + 0x01a]: ["TPM_RC_INSUFFICIENT", "the input is too short"],
  [RC_FMT1 + 0x01b]: ["TPM_RC_SIGNATURE", "the signature is not valid"],
  [RC_FMT1 + 0x01c]: ["TPM_RC_KEY", "the key fields are not right"],
  [TPM_RC_POLICY_FAIL]: ["TPM_RC_POLICY_FAIL", "a policy check failed"],
  [TPM_RC_INTEGRITY]: ["TPM_RC_INTEGRITY", "the integrity check failed"],
  [RC_FMT1 + 0x020]: ["TPM_RC_TICKET", "the ticket is not valid"],
  [RC_FMT1 + 0x021]: ["TPM_RC_RESERVED_BITS", "reserved bits are set"],
  [RC_FMT1 + 0x022]: ["TPM_RC_BAD_AUTH", "the authorization failed (no lockout count)"],
  [RC_FMT1 + 0x023]: ["TPM_RC_EXPIRED", "the policy has expired"],
  [RC_FMT1 + 0x024]: ["TPM_RC_POLICY_CC", "the policy names another command"],
  [RC_FMT1 + 0x025]: ["TPM_RC_BINDING", "the public and private parts do not match"],
  [RC_FMT1 + 0x026]: ["TPM_RC_CURVE", "the curve is not supported"],
  [RC_FMT1 + 0x027]: ["TPM_RC_ECC_POINT", "the point is not on the curve"],
};

const WARNINGS: Readonly<Record<number, readonly [string, string]>> = {
  [RC_WARN + 0x001]: ["TPM_RC_CONTEXT_GAP", "the context gap is too large"],
  [RC_WARN + 0x002]: ["TPM_RC_OBJECT_MEMORY", "no room for another object"],
  [RC_WARN + 0x003]: ["TPM_RC_SESSION_MEMORY", "no room for another session"],
  [RC_WARN + 0x004]: ["TPM_RC_MEMORY", "out of memory"],
  [RC_WARN + 0x005]: ["TPM_RC_SESSION_HANDLES", "no session handle left"],
  [RC_WARN + 0x006]: ["TPM_RC_OBJECT_HANDLES", "no object handle left"],
  [RC_WARN + 0x007]: ["TPM_RC_LOCALITY", "the locality is not allowed"],
  [TPM_RC_YIELDED]: ["TPM_RC_YIELDED", "the TPM suspended the command"],
  [RC_WARN + 0x009]: ["TPM_RC_CANCELED", "the command was canceled"],
  [TPM_RC_TESTING]: ["TPM_RC_TESTING", "the TPM is testing itself"],
  [RC_WARN + 0x020]: ["TPM_RC_NV_RATE", "NV writes are rate-limited now"],
  [TPM_RC_LOCKOUT]: ["TPM_RC_LOCKOUT", "the TPM is in dictionary-attack lockout"],
  [TPM_RC_RETRY]: ["TPM_RC_RETRY", "the TPM was busy"],
  [RC_WARN + 0x023]: ["TPM_RC_NV_UNAVAILABLE", "NV is not available now"],
};

export interface ResponseCode {
  /** The whole code as the TPM answered it. */
  readonly code: number;
  /** The error without its handle, session or parameter number: what to compare against. */
  readonly base: number;
  /** Which part of the command it is about, for a format 1 code that says so. */
  readonly about?: { readonly kind: "handle" | "session" | "parameter"; readonly number: number };
  /** The spec's name, `TPM_RC_POLICY_FAIL`; a code the table lacks is named by its value. */
  readonly name: string;
  readonly text: string;
}

/** Takes a response code apart: its base error, what it is about, its name. */
export function decodeResponseCode(code: number): ResponseCode {
  if (code & RC_FMT1) {
    const base = code & 0xbf;
    const n = (code >>> 8) & 0xf;
    const about =
      code & 0x40
        ? { kind: "parameter" as const, number: n }
        : n >= 8
          ? { kind: "session" as const, number: n - 8 }
          : n > 0
            ? { kind: "handle" as const, number: n }
            : undefined;
    const [name, text] = FORMAT_1[base] ?? unknown(base);
    return { code, base, ...(about ? { about } : {}), name, text };
  }
  const [name, text] =
    (code & RC_WARN) === RC_WARN
      ? (WARNINGS[code] ?? unknown(code))
      : (FORMAT_0[code] ?? unknown(code));
  return { code, base: code, name, text };
}

/** `TPM_RC_POLICY_FAIL on session 1 (a policy check failed)`. */
export function describeResponseCode(rc: ResponseCode): string {
  const about = rc.about ? ` on ${rc.about.kind} ${rc.about.number}` : "";
  return `${rc.name}${about}: ${rc.text}`;
}

function unknown(code: number): readonly [string, string] {
  return [`0x${code.toString(16)}`, "a code this client does not know"];
}
