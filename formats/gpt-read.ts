// A disk's GPT read from its first MiB, where every table liken writes or judges fits.
import { open } from "node:fs/promises";
import { MIB } from "../common/size.ts";
import { type Gpt, parseGpt } from "./gpt.ts";

/** The GPT of the disk or image file at `path`, or undefined when none reads. */
export async function readGpt(
  path: string,
  sectorSizes?: readonly number[],
): Promise<Gpt | undefined> {
  const handle = await open(path, "r");
  const head = Buffer.alloc(MIB);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  return parseGpt(head, sectorSizes);
}
