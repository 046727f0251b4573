// A little-endian ELF64 file opened for reading its structures, and its program headers:
// what the loader's view (elf.ts) and the read-ahead's ranges (elf-ranges.ts) start from.
import { open } from "node:fs/promises";

export interface ProgramHeader {
  readonly type: number;
  readonly offset: number;
  readonly vaddr: bigint;
  readonly filesz: bigint;
}

export interface ElfFile {
  readonly header: Buffer;
  readonly segments: readonly ProgramHeader[];
  /** `length` bytes at `offset`; throws when they lie outside the file. */
  read(offset: number, length: number): Promise<Buffer>;
}

/** Runs `use` on `file` opened as ELF64; undefined when it is not a little-endian ELF64 file. */
export async function withElfFile<T>(
  file: string,
  use: (elf: ElfFile) => Promise<T>,
): Promise<T | undefined> {
  const handle = await open(file, "r");
  try {
    const size = (await handle.stat()).size;
    const read = async (offset: number, length: number): Promise<Buffer> => {
      if (offset < 0 || length < 0 || offset + length > size)
        throw new Error(`${file}: ELF structure points outside the file`);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, offset);
      return buffer;
    };
    if (size < 64) return undefined;
    const header = await read(0, 64);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1)
      return undefined;
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = header.readUInt16LE(56);
    const table = await read(phoff, phentsize * phnum);
    const segments = Array.from({ length: phnum }, (_, i) => {
      const at = i * phentsize;
      return {
        type: table.readUInt32LE(at),
        offset: Number(table.readBigUInt64LE(at + 8)),
        vaddr: table.readBigUInt64LE(at + 16),
        filesz: table.readBigUInt64LE(at + 32),
      };
    });
    return await use({ header, segments, read });
  } finally {
    await handle.close();
  }
}
