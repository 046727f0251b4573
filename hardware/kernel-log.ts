// The kernel's log since boot, read from /dev/kmsg without a process (dmesg costs a second
// under emulation): one record per read(2), "PRI,SEQ,TIME,FLAGS;message", read without
// blocking until EAGAIN says there is no newer record. Each message without its prefix;
// with `containing`, only the messages that hold it (the others are not decoded: a stick's
// log has about 500 records, and under emulation each decoded one costs a tenth of a ms).
import { closeSync, constants, openSync, readSync } from "node:fs";

export function readKernelLog(containing?: string, device = "/dev/kmsg"): string[] {
  let fd: number;
  try {
    fd = openSync(device, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return []; // no /dev/kmsg, or not allowed to read it
  }
  const lines: string[] = [];
  const record = Buffer.alloc(8192); // a record is at most 1 KiB of text, plus its fields
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, record, 0, record.length, null);
      } catch (error) {
        // EPIPE: records were overwritten since the last read; the next read goes on
        if ((error as NodeJS.ErrnoException).code === "EPIPE") continue;
        break; // EAGAIN: the end
      }
      if (n <= 0) break;
      if (containing !== undefined && record.subarray(0, n).indexOf(containing) === -1) continue;
      const text = record.subarray(0, n).toString("utf8");
      const message = text.slice(text.indexOf(";") + 1).split("\n")[0] ?? "";
      lines.push(message);
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}
