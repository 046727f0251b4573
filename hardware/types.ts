// A disk's or NIC's driver chain as sysfs shows it, and the boot path's verdict on each
// level: the values hardware/sysfs.ts reads and hardware/boot-path.ts judges, which the
// hardware report, the installer and the menu show.

/** Whether the release's boot path can drive one level of a chain. */
export type BootSupport =
  /** its module is one the release's initramfs carries */
  | "carried"
  /** built into the release's kernel */
  | "builtin"
  /** a loadable module the release cannot load at boot */
  | "missing"
  /** built into this kernel under a name the release does not list (bus and port drivers) */
  | "unknown";

/** One device between a disk or NIC and the PCI root: what drives it. */
export interface ChainLevel {
  /** Its path under /sys/devices: `pci0000:00/0000:00:1d.0/0000:3d:00.0`. */
  readonly device: string;
  /** `pci`, `usb`, `scsi`, `virtio`, ...: the basename of its `subsystem` link. */
  readonly subsystem: string | null;
  /** The bound driver (basename of the `driver` link); null when none is bound. */
  readonly driver: string | null;
  /**
   * The module that provides the driver (`driver/module`), the driver's own name in module
   * spelling when it is built in, or for a device with no driver, the module its modalias
   * loads in the release (null when nothing would).
   */
  readonly module: string | null;
  /** The driver is built into the running kernel (it has no `driver/module` link). */
  readonly builtin: boolean;
  readonly modalias: string | null;
  /** Whether the release can drive it at boot; null without --release. */
  readonly boot: BootSupport | null;
}
