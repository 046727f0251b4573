// Where an ELF64 file's mapped bytes and one of its exported objects lie in the file: what
// a read-ahead of a binary's start needs (image-build/node-read-ahead.ts).
import { LikenError } from "../../common/errors.ts";
import { withElfFile } from "./elf-file.ts";

export interface FileRange {
  readonly offset: number;
  readonly size: number;
}

const PT_LOAD = 1;
const SHT_DYNSYM = 11;

export interface ElfRanges {
  /** Its PT_LOAD segments' bytes in the file: what a process maps of it. */
  readonly loaded: readonly FileRange[];
  /** Each exported symbol whose name matches, with the bytes its object occupies in the file. */
  readonly symbols: readonly (FileRange & { readonly name: string })[];
}

/** The loaded ranges of a little-endian ELF64 file and the file ranges of its matching dynamic symbols. */
export async function readElfRanges(file: string, symbol: RegExp): Promise<ElfRanges> {
  const ranges = await withElfFile(file, async ({ header, segments, read }) => {
    const shoff = Number(header.readBigUInt64LE(40));
    const shentsize = header.readUInt16LE(58);
    const shnum = header.readUInt16LE(60);
    const loads = segments
      .filter((s) => s.type === PT_LOAD)
      .map((s) => ({ offset: s.offset, vaddr: Number(s.vaddr), size: Number(s.filesz) }));

    const sections = await read(shoff, shentsize * shnum);
    const section = (i: number) => ({
      type: sections.readUInt32LE(i * shentsize + 4),
      offset: Number(sections.readBigUInt64LE(i * shentsize + 24)),
      size: Number(sections.readBigUInt64LE(i * shentsize + 32)),
      link: sections.readUInt32LE(i * shentsize + 40),
    });
    const symbols: (FileRange & { name: string })[] = [];
    for (let i = 0; i < shnum; i++) {
      const dynsym = section(i);
      if (dynsym.type !== SHT_DYNSYM) continue;
      const strings = section(dynsym.link);
      const names = await read(strings.offset, strings.size);
      const table = await read(dynsym.offset, dynsym.size);
      for (let at = 0; at + 24 <= table.length; at += 24) {
        const nameAt = table.readUInt32LE(at);
        const end = names.indexOf(0, nameAt);
        const name = names.toString("latin1", nameAt, end < 0 ? names.length : end);
        if (!symbol.test(name)) continue;
        const vaddr = Number(table.readBigUInt64LE(at + 8));
        const bytes = Number(table.readBigUInt64LE(at + 16));
        // A symbol's address is a virtual one: the segment that maps it gives its file offset.
        const load = loads.find((s) => s.vaddr <= vaddr && vaddr + bytes <= s.vaddr + s.size);
        if (load) symbols.push({ name, offset: load.offset + vaddr - load.vaddr, size: bytes });
      }
    }
    return { loaded: loads.map(({ offset, size }) => ({ offset, size })), symbols };
  });
  if (!ranges)
    throw new LikenError({
      kind: "failed",
      what: `${file} is not a little-endian ELF64 file, so its read-ahead cannot be planned`,
      hint: "delete it from the liken cache and build again: the build fetches and checks it anew",
    });
  return ranges;
}
