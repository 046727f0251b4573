// How a release is built other than as released: the tests' releases that fail on purpose,
// lack a driver or carry bulk (testing/release-variant.ts makes them from named knobs). The
// build applies a variant at its named points and knows nothing of why; a real release is
// AS_RELEASED, where every point changes nothing.

/** A file the variant puts in the root: its path there, its mode and its bytes. */
export interface RootFile {
  readonly path: string;
  readonly mode: number;
  readonly bytes: string | Buffer;
}

export interface ReleaseVariant {
  /** Modules left out of the boot path, with whatever needs them. */
  readonly withoutModules: readonly string[];
  /** Shell lines the root's init runs before it starts the boot agent. */
  readonly initLines: string;
  /** Files added to the root before it is compressed (health checks, bulk). */
  readonly rootFiles: readonly RootFile[];
  /** erofs's compressor: lz4hc unless the root is bulk that does not compress. */
  readonly compress: "lz4hc" | "lz4";
  /** Changes rootfs.img after its dm-verity hash tree was made. */
  readonly afterHashTree: (image: string) => Promise<void>;
  /** Changes liken.efi's bytes after they were signed. */
  readonly afterSigning: (uki: Buffer) => void;
}

export const AS_RELEASED: ReleaseVariant = {
  withoutModules: [],
  initLines: "",
  rootFiles: [],
  compress: "lz4hc",
  afterHashTree: async () => {},
  afterSigning: () => {},
};
