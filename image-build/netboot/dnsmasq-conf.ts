// The dnsmasq(8) configuration a netboot folder carries: what turns a site's dnsmasq into
// the boot server of UEFI PXE and UEFI HTTP boot clients (dnsmasq's man page: dhcp-match,
// dhcp-userclass, dhcp-boot, enable-tftp; client architectures from RFC 4578 and the UEFI
// specification's HTTP boot chapter: 7 and 9 are x86-64 PXE, 16 x86-64 HTTP boot, 11 and 19
// the same for arm64: common/arch.ts). The
// address range is the site's: the operator adds dhcp-range (or runs it beside the site's
// DHCP server in proxy mode).
//
// Unsigned, the firmware loads iPXE (TFTP for PXE, HTTP for HTTP boot), and iPXE, which
// says so in its user class, is given boot.ipxe. Signed, the firmware loads the signed
// unified kernel image itself, with the payload's URL inside its signed command line:
// Debian's iPXE is not signed, and with Secure Boot on nothing unsigned runs.

import { type Arch, archFacts } from "../../common/arch.ts";

export interface DnsmasqConf {
  readonly title: string;
  /** The folder's URL, with a trailing slash: http://10.0.0.1/liken/ */
  readonly url: string;
  /** The folder's path on the server, for TFTP. */
  readonly tftpRoot: string;
  /** The file the firmware loads: iPXE, or the signed unified kernel image. */
  readonly firmwareLoads: string;
  /** True when the firmware's file is iPXE, which then fetches boot.ipxe. */
  readonly ipxe: boolean;
  /** The machines' arch: which client architectures (DHCP option 93) are answered. */
  readonly arch: Arch;
}

export function dnsmasqConf(c: DnsmasqConf): string {
  const { qemu, dhcpClientArch } = archFacts(c.arch);
  const pxe = `efi-${qemu}`;
  const lines = [
    `# ${c.title}`,
    "# Add the site's addresses, e.g. dhcp-range=10.0.0.100,10.0.0.199,12h, and run",
    "#   dnsmasq --conf-file=THIS_FILE",
    `# with the folder served over HTTP at ${c.url} and found at tftp-root below.`,
    ...dhcpClientArch.pxe.map((n) => `dhcp-match=set:${pxe},option:client-arch,${n}`),
    ...dhcpClientArch.http.map((n) => `dhcp-match=set:efi-http,option:client-arch,${n}`),
    "enable-tftp",
    `tftp-root=${c.tftpRoot}`,
    // HTTP boot clients take a URL as the boot file only from an answer that says HTTPClient.
    "dhcp-option-force=tag:efi-http,60,HTTPClient",
  ];
  if (c.ipxe) {
    lines.push(
      "dhcp-userclass=set:ipxe,iPXE",
      `dhcp-boot=tag:${pxe},tag:!ipxe,${c.firmwareLoads}`,
      `dhcp-boot=tag:efi-http,tag:!ipxe,${c.url}${c.firmwareLoads}`,
      `dhcp-boot=tag:ipxe,${c.url}boot.ipxe`,
    );
  } else {
    lines.push(
      `dhcp-boot=tag:${pxe},${c.firmwareLoads}`,
      `dhcp-boot=tag:efi-http,${c.url}${c.firmwareLoads}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
