// A command's bytes and its response's (TCG TPM 2.0 Library Part 1, "Command/Response
// Structure"): a header of tag, size and code; the handle area; with sessions, the
// authorization area's size and the sessions; the parameters. A response: tag, size,
// response code; its handles; with sessions, the parameters' size, the parameters and one
// acknowledgement per session.
import {
  COMMANDS,
  type CommandName,
  TPM_RS_PW,
  TPM_ST_NO_SESSIONS,
  TPM_ST_SESSIONS,
} from "./constants.ts";
import { build, Reader, type Writer } from "./marshal.ts";
import { decodeResponseCode, TPM_RC_SUCCESS } from "./response-code.ts";
import { TpmError, tpmErrorFor } from "./tpm-error.ts";

/** One session in a command's authorization area (TPMS_AUTH_COMMAND, Part 2). */
export interface AuthSession {
  readonly handle: number;
  readonly nonce: Uint8Array;
  /** TPMA_SESSION: 0 leaves continueSession clear, so the TPM flushes the session after use. */
  readonly attributes: number;
  readonly hmac: Uint8Array;
}

/** The empty password: TPM_RS_PW with no nonce and no password (Part 1, "Password Authorizations"). */
export const EMPTY_PASSWORD: AuthSession = {
  handle: TPM_RS_PW,
  nonce: Buffer.alloc(0),
  attributes: 0,
  hmac: Buffer.alloc(0),
};

/**
 * A policy session in its use: no HMAC, since the policy asks for no authValue
 * (Part 1, "Policy Session"); continueSession clear.
 */
export function policySession(handle: number): AuthSession {
  return { handle, nonce: Buffer.alloc(0), attributes: 0, hmac: Buffer.alloc(0) };
}

/** A command as data: what it sends and how its answer reads. */
export interface TpmCommand<T> {
  readonly name: CommandName;
  readonly handles: readonly number[];
  /** Empty: TPM_ST_NO_SESSIONS. */
  readonly sessions: readonly AuthSession[];
  readonly parameters: Uint8Array;
  /** How many handles the response carries before its parameters. */
  readonly responseHandles: number;
  readonly read: (handles: readonly number[], parameters: Reader) => T;
}

/** A command's bytes. */
export function marshalCommand(command: TpmCommand<unknown>): Buffer {
  const body = build((w) => {
    for (const handle of command.handles) w.u32(handle);
    if (command.sessions.length > 0) {
      const area = build((a) => {
        for (const session of command.sessions) writeSession(a, session);
      });
      w.u32(area.length).raw(area);
    }
    w.raw(command.parameters);
  });
  return build((w) =>
    w
      .u16(command.sessions.length > 0 ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS)
      .u32(10 + body.length)
      .u32(COMMANDS[command.name])
      .raw(body),
  );
}

function writeSession(w: Writer, session: AuthSession): void {
  w.u32(session.handle).sized(session.nonce).u8(session.attributes).sized(session.hmac);
}

/** The response's value; a TpmError for a code other than success or for bytes that do not parse. */
export function parseResponse<T>(command: TpmCommand<T>, response: Buffer): T {
  const malformed = (why: string) =>
    new TpmError(command.name, undefined, "Failed", `the answer does not parse: ${why}`);
  if (response.length < 10) throw malformed(`${response.length} bytes, shorter than a header`);
  const size = response.readUInt32BE(2);
  if (size !== response.length)
    throw malformed(`its header says ${size} bytes, ${response.length} came`);
  const code = response.readUInt32BE(6);
  if (code !== TPM_RC_SUCCESS) throw tpmErrorFor(command.name, code);
  try {
    const reader = new Reader(response.subarray(10));
    const handles = Array.from({ length: command.responseHandles }, () => reader.u32());
    const parameters =
      response.readUInt16BE(0) === TPM_ST_SESSIONS ? new Reader(reader.take(reader.u32())) : reader;
    return command.read(handles, parameters);
  } catch (error) {
    throw malformed(error instanceof Error ? error.message : String(error));
  }
}

/** Sends bytes and gives back the answer's bytes: the device or a test's socket. */
export interface Transmit {
  transmit(command: Buffer): Promise<Buffer>;
}

// Warnings that say "the same command again, a moment later" (Part 2, 6.6): a TPM busy
// with another locality, one that suspended a long command, one still testing itself.
const AGAIN = new Set([0x922, 0x908, 0x90a]);
const AGAIN_TRIES = 50;
const AGAIN_WAIT_MS = 100;

/** Runs a command: sends it, again while the TPM says to retry, and reads the answer. */
export async function execute<T>(tpm: Transmit, command: TpmCommand<T>): Promise<T> {
  const bytes = marshalCommand(command);
  for (let attempt = 1; ; attempt++) {
    let response: Buffer;
    try {
      response = await tpm.transmit(bytes);
    } catch (error) {
      throw new TpmError(command.name, undefined, "Failed", oneCause(error), error);
    }
    const code = response.length >= 10 ? response.readUInt32BE(6) : TPM_RC_SUCCESS;
    if (!AGAIN.has(decodeResponseCode(code).base) || attempt === AGAIN_TRIES)
      return parseResponse(command, response);
    await new Promise((resolve) => setTimeout(resolve, AGAIN_WAIT_MS));
  }
}

function oneCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
