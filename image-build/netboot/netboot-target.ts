// The one description the netboot exports (matchbox.ts, tinkerbell.ts) read, so each engine's
// files boot exactly what boot.ipxe boots.

/** What a netboot engine needs to boot a liken machine: URLs and the kernel's arguments. */
export interface NetbootTarget {
  /** The cluster's name (manifest `cluster`). */
  readonly cluster: string;
  /** Absolute http(s) URLs of the kernel and the initramfs. */
  readonly kernelUrl: string;
  readonly initrdUrl: string;
  /** The absolute URL of boot.ipxe (an iPXE script that boots the same kernel, initrd and args). */
  readonly ipxeUrl: string;
  /**
   * Kernel command-line words shared by every machine, e.g. ["console=tty0",
   * "liken.payload=http://10.0.0.1/liken/payload"]. The initrd= word is NOT included.
   */
  readonly args: readonly string[];
  /** The manifest's machines that name MACs in their match: each gets `liken.install=<name>`. */
  readonly machines: readonly { readonly name: string; readonly macs: readonly string[] }[];
}

/** A file an export writes: its path relative to the output folder, and its text. */
export interface ExportFile {
  readonly path: string;
  readonly text: string;
}
