// boot.ipxe: the iPXE script of a netboot folder. Its URLs are relative to its own (iPXE
// resolves them against the script's URI), so the folder can be served from any HTTP root.
// The kernel learns where the payload is from liken.payload: a script that chains this one
// may set liken-payload first; otherwise it is ${filename}, the URL the DHCP server gave
// for this script, and the initramfs takes the payload/ folder beside it (medium-sh.ts).
// BOOTIF names the NIC iPXE booted from, so the initramfs asks that one for its lease.
// iPXE scripting: ipxe.org/scripting, ipxe.org/cmd/kernel, ipxe.org/cfg/filename.

/** The netboot folder's files that iPXE fetches. */
export const NETBOOT_KERNEL = "vmlinuz";
export const NETBOOT_INITRD = "initrd.img";

/** The word that tells the initramfs which NIC iPXE booted from, as iPXE fills it in. */
export const IPXE_BOOTIF = `BOOTIF=01-\${netX/mac:hexhyp}`;

export function bootIpxe(o: { readonly title: string; readonly cmdline: string }): string {
  return `#!ipxe
# ${o.title}
isset \${liken-payload} || set liken-payload \${filename}
kernel ${NETBOOT_KERNEL} initrd=${NETBOOT_INITRD} liken.payload=\${liken-payload} ${IPXE_BOOTIF} ${o.cmdline}
initrd ${NETBOOT_INITRD}
boot
`;
}
