// The way to a TPM: one command's bytes out, one response's bytes back. On a machine that is
// /dev/tpmrm0, the kernel's resource manager (Linux 4.12 on): it swaps other programs'
// objects and sessions out around ours, and flushes what we leave when we close it.
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { LikenError } from "../../common/errors.ts";
import { describeFileError, findFileError } from "../../common/file-errors.ts";

export interface TpmTransport {
  transmit(command: Buffer): Promise<Buffer>;
  close(): Promise<void>;
}

/** The size a TPM's command or response can reach (the kernel's TPM_BUFSIZE). */
const TPM_BUFSIZE = 4096;
const HEADER = 10;

/** Opens the TPM device read/write; a machine without a TPM 2.0 is a LikenError. */
export async function openTpmDevice(path = "/dev/tpmrm0"): Promise<TpmTransport> {
  let file: FileHandle;
  try {
    file = await open(path, "r+");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new LikenError({
        kind: "refused",
        what: `${path} does not exist: the kernel drives no TPM 2.0 on this machine`,
        hint: "turn the TPM on in the firmware's setup, or install without [encryption] tpm",
        reason: "NoTpm",
        cause: error,
      });
    const known = findFileError(error);
    throw known
      ? new LikenError({ kind: "failed", ...describeFileError(known), cause: error })
      : error;
  }
  // One command at a time: the device answers the command written last, so a second
  // write before the first answer is read would lose it.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    transmit(command) {
      const turn = queue.then(() => exchange(file, command));
      // The caller gets this command's error; the next command waits only for its turn.
      queue = turn.catch(() => undefined);
      return turn;
    },
    close: () => file.close(),
  };
}

async function exchange(file: FileHandle, command: Buffer): Promise<Buffer> {
  const { bytesWritten } = await file.write(command, 0, command.length, null);
  if (bytesWritten !== command.length)
    throw new Error(`the TPM device took ${bytesWritten} of the command's ${command.length} bytes`);
  // The kernel hands the whole response to one read of a buffer as large as TPM_BUFSIZE;
  // the header's size says whether it all came.
  const buffer = Buffer.alloc(TPM_BUFSIZE);
  let got = 0;
  while (got < HEADER || got < buffer.readUInt32BE(2)) {
    const { bytesRead } = await file.read(buffer, got, buffer.length - got, null);
    if (bytesRead === 0) break;
    got += bytesRead;
    if (got >= HEADER && buffer.readUInt32BE(2) > TPM_BUFSIZE) break;
  }
  return buffer.subarray(0, got);
}
