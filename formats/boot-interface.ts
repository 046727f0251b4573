// What a release's initramfs and the boot agent in its root tell each other across
// switch_root and across a reset (docs/rollback.md, What a release's root does).

/** systemd-boot's vendor GUID (systemd docs/BOOT_LOADER_INTERFACE.md): LoaderEntrySelected, LoaderBootCountPath. */
export const LOADER_GUID = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

/**
 * The EFI variable (efivarfs name) a trial's initramfs leaves when it cannot boot the
 * slot, as `BOOTID VERSION SLOT REASON` after the 4 attribute bytes: the proven boot
 * after the reset records the reason and removes it. liken's own vendor GUID.
 */
export const TRIAL_FAILURE_VARIABLE = "LikenTrialFailure-4c494b45-4e00-4f00-8000-747269616c00";

/** The device-mapper name of the verified root, and its uuid: this prefix and the root hash. */
export const VERITY_DM_NAME = "liken-root";
export const VERITY_DM_UUID_PREFIX = "LIKEN-VERITY-";

/** Present while a trial boots (written by the initramfs, in /run, which moves into the root). */
export const TRIAL_MARK = "/run/liken/trial";

/** The modules the initramfs loaded, one name a line, written before it switches to the root. */
export const INITRAMFS_MODULES = "/run/liken/initramfs-modules";

/** The longest a boot waits for a declared port's carrier (the agent waits, the report warns). */
export const PORT_WAIT_SECONDS = 30;

/**
 * Present while the stick's root loads drivers by modalias, which it does while Node.js
 * starts: the disk inventory and the hardware report wait for it to go
 * (hardware/stick-drivers.ts), so a disk behind a controller whose driver loads late is
 * never missing from a list.
 */
export const STICK_DRIVERS_LOADING = "/run/liken-stick/drivers-loading";

/**
 * The slot the initramfs mounted and its partition, as `SLOT PARTUUID` (written before it
 * switches to the root): a signed release's command line names neither, so the initramfs
 * finds them from systemd-boot's variables and the boot agent reads them here.
 */
export const BOOT_ROOT = "/run/liken/boot-root";
