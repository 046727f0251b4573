// dnsmasq(8) (Debian's dnsmasq-base: the program without its system service), as the
// netboot tests run it: the DHCP and TFTP server of a network namespace, in the
// foreground, no DNS, its leases and log in files of the test's own.

import { type StartedProcess, start } from "./exec.ts";
import { inNamespace } from "./ip.ts";

export interface DnsmasqRun {
  /** The network namespace it serves in, and the interface there. */
  readonly ns: string;
  readonly iface: string;
  /** A configuration file (a netboot folder's dnsmasq.conf). */
  readonly confFile: string;
  /** dhcp-range: "10.77.0.50,10.77.0.99,1h" */
  readonly range: string;
  readonly leaseFile: string;
  readonly logFile: string;
}

export function startDnsmasq(r: DnsmasqRun): Promise<StartedProcess> {
  return start(
    "ip",
    inNamespace(r.ns, "dnsmasq", [
      "--keep-in-foreground",
      `--conf-file=${r.confFile}`,
      `--interface=${r.iface}`,
      "--bind-interfaces",
      "--port=0", // no DNS
      // It would run as nobody, who cannot read a folder under root's home.
      "--user=root",
      `--dhcp-range=${r.range}`,
      `--dhcp-leasefile=${r.leaseFile}`,
      "--pid-file", // none
      "--log-dhcp",
      `--log-facility=${r.logFile}`,
    ]),
  );
}
