// The declared network of a machine (docs/manifest.md, Networks): each rule's problem as
// the operator reads it, at the line and column of the value that breaks it.
import { describe, expect, it } from "vitest";
import { formatProblem, type ManifestResult, parseManifest } from "./index.ts";

/** Seven lines; a test's own lines start at line 8. */
const HEAD = `cluster = "c"
[release]
version = "1.0.0"
[[machines]]
name = "leader-1"
role = "leader"
ports = ["eno1", "eno2", "eno3"]
`;

function check(tail: string): ManifestResult {
  return parseManifest(HEAD + tail, "f.toml");
}

function errors(tail: string): string[] {
  const result = check(tail);
  return result.ok ? [] : result.errors.map(formatProblem);
}

function warnings(tail: string): string[] {
  const result = check(tail);
  expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([]);
  return result.warnings.map(formatProblem);
}

const BOND = `[[machines.interfaces]]
name = "bond0"
bond = { ports = ["eno1", "eno2"], mode = "802.3ad" }
`;

describe("a declared network", () => {
  it("reads the issue's example into the typed declaration", () => {
    const result = check(`nameservers = ["10.0.40.2"]

[[machines.interfaces]]
name = "bond0"
bond = { ports = ["eno1", "eno2"], mode = "802.3ad" }   # or "active-backup"
mtu = 9000

[[machines.interfaces]]
name = "bond0.40"
vlan = { link = "bond0", id = 40 }
addresses = ["10.0.40.11/24", "fd00:40::11/64"]
routes = [{ to = "0.0.0.0/0", via = "10.0.40.1" }]

[[machines.interfaces]]
name = "eno3"
dhcp = true
`);
    expect(result.ok ? result.warnings : result.errors.map(formatProblem)).toEqual([]);
    expect(result.ok && result.manifest.machines[0]).toEqual({
      name: "leader-1",
      role: "leader",
      ports: ["eno1", "eno2", "eno3"],
      nameservers: ["10.0.40.2"],
      interfaces: [
        {
          name: "bond0",
          bond: { ports: ["eno1", "eno2"], mode: "802.3ad" },
          mtu: 9000,
          addresses: [],
          routes: [],
          dhcp: false,
        },
        {
          name: "bond0.40",
          vlan: { link: "bond0", id: 40 },
          addresses: ["10.0.40.11/24", "fd00:40::11/64"],
          routes: [{ to: "0.0.0.0/0", via: "10.0.40.1" }],
          dhcp: false,
        },
        { name: "eno3", addresses: [], routes: [], dhcp: true },
      ],
      modules: [],
      reboot_policy: "Manual",
    });
  });

  it("is empty when no interface is declared", () => {
    const result = check("");
    expect(result.ok && result.manifest.machines[0]).toMatchObject({
      interfaces: [],
      nameservers: [],
    });
  });

  it("takes a port with addresses and DHCP both, and inline interface tables", () => {
    const result = check(
      'interfaces = [{ name = "eno1", dhcp = true, addresses = ["10.0.0.5/24"] }]\n',
    );
    expect(result.ok && result.manifest.machines[0]?.interfaces).toEqual([
      { name: "eno1", addresses: ["10.0.0.5/24"], routes: [], dhcp: true },
    ]);
  });

  it("takes a bond of one port in active-backup and an IPv6 default route", () => {
    const result = check(`[[machines.interfaces]]
name = "bond0"
bond = { ports = ["eno1"], mode = "active-backup" }
addresses = ["fd00::5/64"]
routes = [{ to = "::/0", via = "fd00::1" }, { to = "fd01::/48", via = "fd00::2" }]
`);
    expect(result.ok ? result.warnings : result.errors.map(formatProblem)).toEqual([]);
  });
});

describe("interfaces: keys and names", () => {
  it("refuses an unknown key, with the nearest known one", () => {
    expect(errors('[[machines.interfaces]]\nname = "eno1"\ndhcp = true\nadresses = []\n')).toEqual([
      'f.toml:11:1: unknown key "adresses" in [[machines.interfaces]] (did you mean "addresses"? allowed: name, bond, vlan, mtu, addresses, routes, dhcp)',
    ]);
  });

  it("says where a machine's key written below its interfaces belongs", () => {
    expect(
      errors('[[machines.interfaces]]\nname = "eno1"\ndhcp = true\nreboot_policy = "Manual"\n'),
    ).toEqual([
      'f.toml:11:1: unknown key "reboot_policy" in [[machines.interfaces]] ("reboot_policy" is a key of the machine: move it above the machine\'s first [[machines.interfaces]]; allowed here: name, bond, vlan, mtu, addresses, routes, dhcp)',
    ]);
  });

  it("refuses unknown keys in bond, vlan and a route", () => {
    expect(
      errors(`${BOND.replace('mode = "802.3ad"', 'mode = "802.3ad", lacp_rate = "fast"')}
[[machines.interfaces]]
name = "bond0.40"
vlan = { link = "bond0", id = 40, tag = 1 }
addresses = ["10.0.40.11/24"]
routes = [{ to = "0.0.0.0/0", via = "10.0.40.1", metric = 5 }]
`),
    ).toEqual([
      'f.toml:10:54: unknown key "lacp_rate" in bond (allowed: ports, mode)',
      'f.toml:14:35: unknown key "tag" in vlan (allowed: link, id)',
      'f.toml:16:50: unknown key "metric" in a route (allowed: to, via)',
    ]);
  });

  it("says that an interface's key written in the machine belongs in an interface", () => {
    expect(errors("mtu = 9000\n")).toEqual([
      'f.toml:8:1: unknown key "mtu" in [[machines]] ("mtu" belongs in a [[machines.interfaces]] table; allowed here: name, role, ports, nameservers, interfaces, modules, system_disk, reboot_policy, match, arch)',
    ]);
  });

  it("refuses an interface that is not a table", () => {
    expect(errors('interfaces = ["eno1"]\n')).toEqual([
      "f.toml:8:15: each interface must be a table, not a string (write a [[machines.interfaces]] table for each interface, below its machine's keys)",
    ]);
  });

  it("refuses an interface without a name", () => {
    expect(errors("[[machines.interfaces]]\ndhcp = true\n")).toEqual([
      'f.toml:8:1: missing key "name" in [[machines.interfaces]] (add name = "NAME": a port of this machine, or the bond or VLAN to create, such as "bond0")',
    ]);
  });

  it("refuses a name Linux does not take", () => {
    expect(errors('[[machines.interfaces]]\nname = "bond0.very-long1"\n')).toEqual([
      'f.toml:9:8: interface name "bond0.very-long1" is 16 bytes long, more than 15 (an interface name has 1 to 15 bytes, no "/", ":", whitespace or NUL, and is not "." or "..")',
    ]);
  });

  it("refuses an interface declared twice", () => {
    expect(
      errors(
        '[[machines.interfaces]]\nname = "eno3"\ndhcp = true\n[[machines.interfaces]]\nname = "eno3"\nmtu = 1500\n',
      ),
    ).toEqual([
      'f.toml:12:8: interface "eno3" is declared twice (the first is on line 9; declare each interface once, with all its keys)',
    ]);
  });

  it("refuses a port interface that is not in ports", () => {
    expect(errors('[[machines.interfaces]]\nname = "eno4"\ndhcp = true\n')).toEqual([
      'f.toml:9:8: interface "eno4" is not in this machine\'s ports (add it to ports, or declare bond or vlan to create it)',
    ]);
  });

  it("refuses bond and vlan on one interface", () => {
    expect(errors(`${BOND}vlan = { link = "eno3", id = 40 }\n`)).toEqual([
      'f.toml:11:1: interface "bond0" declares both bond and vlan (a VLAN on a bond is an interface of its own: declare the bond, then another interface with vlan = { link = "bond0", id = 40 })',
    ]);
  });

  it("refuses a bond or a VLAN with the name of a port", () => {
    expect(
      errors(`${BOND.replace('"bond0"', '"eno3"')}
[[machines.interfaces]]
name = "eno2"
vlan = { link = "eno3", id = 40 }
dhcp = true
`),
    ).toEqual([
      'f.toml:9:8: bond "eno3" has the name of a port (a bond is an interface of its own: name it otherwise, such as "bond0")',
      'f.toml:13:8: VLAN "eno2" has the name of a port (a VLAN is an interface of its own: name it otherwise, such as "eno3.40")',
    ]);
  });

  it("refuses dhcp that is not a boolean", () => {
    expect(errors('[[machines.interfaces]]\nname = "eno1"\ndhcp = "yes"\n')).toEqual([
      "f.toml:10:8: dhcp must be a boolean, not a string (write dhcp = true or dhcp = false, without quotes)",
    ]);
  });

  it("refuses interfaces written as one table", () => {
    expect(errors('[machines.interfaces]\nname = "eno1"\n')).toEqual([
      "f.toml:8:1: interfaces must be an array of tables, not a table (write [[machines.interfaces]], with double brackets, for each interface)",
    ]);
  });
});

describe("bonds", () => {
  it("refuses a bond without ports, and one with none listed", () => {
    expect(
      errors('[[machines.interfaces]]\nname = "bond0"\nbond = { mode = "802.3ad" }\n'),
    ).toEqual([
      'f.toml:10:8: bond names no ports (add ports: list the ports it bonds, such as ports = ["eno1", "eno2"])',
    ]);
    expect(errors(BOND.replace('["eno1", "eno2"]', "[]"))).toEqual([
      'f.toml:10:18: bond.ports is empty (list the ports it bonds, such as ports = ["eno1", "eno2"]; one port is allowed)',
    ]);
  });

  it("refuses a bond port that is not a port of the machine", () => {
    expect(errors(BOND.replace('"eno2"', '"eno9"'))).toEqual([
      'f.toml:10:27: port "eno9" of bond bond0 is not in this machine\'s ports (add it to ports: a bond bonds declared ports)',
    ]);
  });

  it("refuses a port in two bonds, and twice in one", () => {
    expect(
      errors(`${BOND}addresses = ["10.0.0.5/24"]
[[machines.interfaces]]
name = "bond1"
bond = { ports = ["eno3", "eno2", "eno3"], mode = "active-backup" }
addresses = ["10.0.1.5/24"]
`),
    ).toEqual([
      'f.toml:14:35: port "eno3" is listed twice in bond.ports (list each port of a bond once)',
    ]);
    expect(
      errors(`${BOND}addresses = ["10.0.0.5/24"]
[[machines.interfaces]]
name = "bond1"
bond = { ports = ["eno3", "eno2"], mode = "active-backup" }
addresses = ["10.0.1.5/24"]
`),
    ).toEqual([
      'f.toml:14:27: port "eno2" is already in bond bond0 (a port is a member of one bond at most)',
    ]);
  });

  it("refuses a bond without a mode: the switch decides it, so the operator says it", () => {
    expect(errors(BOND.replace(', mode = "802.3ad"', ""))).toEqual([
      'f.toml:10:8: bond has no mode (add mode = "802.3ad" where the switch ports form an LACP group, or mode = "active-backup" for any switch)',
    ]);
  });

  it("refuses a mode that is not 802.3ad or active-backup, and names LACP's", () => {
    expect(errors(BOND.replace('"802.3ad"', '"lacp"'))).toEqual([
      'f.toml:10:43: bond mode "lacp" is not a bond mode (LACP is mode "802.3ad"; allowed: 802.3ad, active-backup)',
    ]);
    expect(errors(BOND.replace('"802.3ad"', '"active-bakup"'))).toEqual([
      'f.toml:10:43: bond mode "active-bakup" is not a bond mode (did you mean "active-backup"? allowed: 802.3ad, active-backup)',
    ]);
  });

  it("refuses an interface of its own for a bond's member", () => {
    expect(
      errors(`${BOND}dhcp = true
[[machines.interfaces]]
name = "eno1"
addresses = ["10.0.0.5/24"]
`),
    ).toEqual([
      'f.toml:13:8: interface "eno1" is a member of bond bond0 (declare its addresses on bond0 and remove this interface: a bond member carries nothing of its own, and bond0\'s mtu applies to it)',
    ]);
  });
});

describe("VLANs", () => {
  const vlan = (fields: string) =>
    `${BOND}mtu = 9000\n[[machines.interfaces]]\nname = "v"\n${fields}\naddresses = ["10.0.40.11/24"]\n`;

  it("refuses a link that is neither a port nor a bond", () => {
    expect(errors(vlan('vlan = { link = "eno9", id = 40 }'))).toEqual([
      'f.toml:14:17: link "eno9" of VLAN v is neither a port nor a bond of this machine (name one of its ports or bonds: eno1, eno2, eno3, bond0)',
    ]);
  });

  it("refuses a VLAN on a bond's member", () => {
    expect(errors(vlan('vlan = { link = "eno2", id = 40 }'))).toEqual([
      'f.toml:14:17: link "eno2" of VLAN v is a member of bond bond0 (put the VLAN on the bond: link = "bond0")',
    ]);
  });

  it("refuses an id outside 1 to 4094, and one that is not an integer", () => {
    expect(errors(vlan('vlan = { link = "bond0", id = 4095 }'))).toEqual([
      "f.toml:14:31: VLAN id 4095 is not 1 to 4094 (0 and 4095 are reserved by 802.1Q: write the VLAN id the switch port carries)",
    ]);
    expect(errors(vlan('vlan = { link = "bond0", id = 0 }'))[0]).toMatch(
      /^f\.toml:14:31: VLAN id 0 /,
    );
    expect(errors(vlan('vlan = { link = "bond0", id = "40" }'))).toEqual([
      "f.toml:14:31: vlan.id must be an integer, not a string (write id = 40, without quotes)",
    ]);
  });

  it("refuses a VLAN without a link or an id", () => {
    expect(errors(vlan("vlan = { id = 40 }"))).toEqual([
      'f.toml:14:8: vlan names no link (add link = "NAME": the port or bond of this machine that carries the VLAN)',
    ]);
    expect(errors(vlan('vlan = { link = "bond0" }'))).toEqual([
      "f.toml:14:8: vlan has no id (add id = N, the VLAN id the switch port carries, 1 to 4094)",
    ]);
  });

  it("refuses the same VLAN on the same link twice", () => {
    expect(
      errors(`${vlan('vlan = { link = "bond0", id = 40 }')}[[machines.interfaces]]
name = "w"
vlan = { link = "bond0", id = 40 }
addresses = ["10.0.41.11/24"]
`),
    ).toEqual([
      "f.toml:18:31: VLAN 40 on bond0 is declared twice (the first is v on line 13; declare each VLAN once)",
    ]);
  });
});

describe("MTU", () => {
  it("refuses an MTU outside 576 to 9216, and one that is not an integer", () => {
    expect(errors('[[machines.interfaces]]\nname = "eno1"\ndhcp = true\nmtu = 9217\n')).toEqual([
      "f.toml:11:7: mtu 9217 is not 576 to 9216 (1500 is Ethernet's default and 9000 the usual jumbo frame; declare what the switch carries)",
    ]);
    expect(errors('[[machines.interfaces]]\nname = "eno1"\ndhcp = true\nmtu = 1500.0\n')).toEqual([
      "f.toml:11:7: mtu must be an integer, not a float (write mtu = 9000, in bytes, without quotes)",
    ]);
  });

  it("refuses an MTU below 1280 on an interface with IPv6", () => {
    expect(
      errors('[[machines.interfaces]]\nname = "eno1"\nmtu = 1000\naddresses = ["fd00::5/64"]\n'),
    ).toEqual([
      'f.toml:10:7: mtu 1000 of interface "eno1" is below 1280, the least IPv6 works on (raise mtu to 1280 or more, or remove the IPv6 addresses)',
    ]);
  });

  it("refuses a VLAN's MTU above its link's", () => {
    const vlanOn = (link: string) =>
      `[[machines.interfaces]]\nname = "v"\nvlan = { link = "${link}", id = 40 }\nmtu = 9000\ndhcp = true\n`;
    expect(errors(`${BOND}mtu = 1500\n${vlanOn("bond0")}`)).toEqual([
      "f.toml:15:7: mtu 9000 of VLAN v is above the mtu 1500 of its link bond0 (set mtu = 9000 on bond0 as well, or lower this one: a VLAN's frames ride on its link)",
    ]);
    expect(errors(`${BOND}${vlanOn("bond0")}`)).toEqual([
      "f.toml:14:7: mtu 9000 of VLAN v is above the 1500 its link bond0 has by default (set mtu = 9000 on bond0 as well, or lower this one: a VLAN's frames ride on its link)",
    ]);
    expect(errors(vlanOn("eno3"))).toEqual([
      "f.toml:11:7: mtu 9000 of VLAN v is above the 1500 its link eno3 has by default (declare eno3 in [[machines.interfaces]] with mtu = 9000: a VLAN's frames ride on its link)",
    ]);
  });

  it("refuses IPv6 on a VLAN whose link's MTU is below 1280", () => {
    expect(
      errors(`${BOND}mtu = 1000
[[machines.interfaces]]
name = "v"
vlan = { link = "bond0", id = 40 }
addresses = ["10.0.40.11/24", "fd00:40::11/64"]
`),
    ).toEqual([
      "f.toml:15:31: VLAN v carries IPv6 on the mtu 1000 of its link bond0 (raise bond0's mtu to 1280 or more, the least IPv6 works on)",
    ]);
  });
});

describe("addresses", () => {
  const address = (text: string) =>
    errors(
      `[[machines.interfaces]]\nname = "eno1"\naddresses = ["10.0.0.5/24", ${JSON.stringify(text)}]\n`,
    );

  it("refuses an address without a prefix length, and suggests one", () => {
    expect(address("10.0.0.6")).toEqual([
      'f.toml:10:29: address "10.0.0.6" has no prefix length (write the address with its subnet\'s prefix length, such as "10.0.0.6/24")',
    ]);
    expect(address("fd00::6")[0]).toMatch(/such as "fd00::6\/64"\)$/);
  });

  it("refuses what is not an address, and a prefix its family does not have", () => {
    expect(address("10.0.0.256/24")).toEqual([
      'f.toml:10:29: address "10.0.0.256/24" is not an IPv4 or IPv6 address (write addresses = ["10.0.40.11/24", "fd00:40::11/64"])',
    ]);
    expect(address("10.0.0.6/33")).toEqual([
      'f.toml:10:29: address "10.0.0.6/33" has a prefix length that is not 0 to 32 (an IPv4 prefix length is a decimal number of 0 to 32 bits)',
    ]);
    expect(address("fd00::6/129")[0]).toMatch(/not 0 to 128 \(an IPv6 prefix length/);
  });

  it("refuses an address that names no single host", () => {
    const hint = "(declare an address that is this interface's alone, inside the subnet it is on)";
    expect(address("10.0.0.0/24")).toEqual([
      `f.toml:10:29: address "10.0.0.0/24" is the network address of 10.0.0.0/24 ${hint}`,
    ]);
    expect(address("10.0.0.255/24")).toEqual([
      `f.toml:10:29: address "10.0.0.255/24" is the broadcast address of 10.0.0.0/24 ${hint}`,
    ]);
    expect(address("127.0.0.1/8")).toEqual([
      `f.toml:10:29: address "127.0.0.1/8" is a loopback address ${hint}`,
    ]);
    expect(address("ff02::1/64")).toEqual([
      `f.toml:10:29: address "ff02::1/64" is a multicast address ${hint}`,
    ]);
    expect(address("::/64")).toEqual([
      `f.toml:10:29: address "::/64" is the unspecified address ${hint}`,
    ]);
  });

  it("refuses an address another interface holds, on any machine, however it is written", () => {
    expect(
      errors(`[[machines.interfaces]]
name = "eno1"
addresses = ["fd00:40::11/64"]
[[machines]]
name = "worker-1"
role = "follower"
ports = ["eno1"]
[[machines.interfaces]]
name = "eno1"
addresses = ["fd00:40:0::11/64", "10.0.0.5/24", "10.0.0.5/16"]
`),
    ).toEqual([
      'f.toml:17:14: address "fd00:40:0::11/64" is also on eno1 of leader-1 (an address belongs to one interface of one machine: change one of the two)',
      'f.toml:17:49: address "10.0.0.5/16" is also on eno1 of worker-1 (an address belongs to one interface of one machine: change one of the two)',
    ]);
  });
});

describe("routes", () => {
  const route = (text: string, addresses = '["10.0.40.11/24"]') =>
    errors(
      `[[machines.interfaces]]\nname = "eno1"\naddresses = ${addresses}\nroutes = [${text}]\n`,
    );

  it("refuses a destination with host bits set, or not in CIDR form", () => {
    expect(route('{ to = "10.1.0.1/16", via = "10.0.40.1" }')).toEqual([
      'f.toml:11:18: route to "10.1.0.1/16" has host bits set (write the subnet it leads to: "10.1.0.0/16")',
    ]);
    expect(route('{ to = "default", via = "10.0.40.1" }')).toEqual([
      'f.toml:11:18: route to "default" is not an IPv4 or IPv6 address (write the subnet it leads to, such as "10.1.0.0/16", or "0.0.0.0/0" for the default route)',
    ]);
  });

  it("refuses a gateway outside the interface's subnets, and names them", () => {
    expect(route('{ to = "0.0.0.0/0", via = "10.0.50.1" }')).toEqual([
      'f.toml:11:37: route via "10.0.50.1" is outside this interface\'s subnets (a gateway is reached directly: use one inside 10.0.40.0/24)',
    ]);
  });

  it("refuses a gateway of another family than the destination", () => {
    expect(route('{ to = "0.0.0.0/0", via = "fd00::1" }')).toEqual([
      'f.toml:11:37: route via "fd00::1" is IPv6 but its to "0.0.0.0/0" is IPv4 (a gateway has the family of the addresses it leads to: give an IPv4 gateway)',
    ]);
  });

  it("refuses a gateway written with a prefix length", () => {
    expect(route('{ to = "0.0.0.0/0", via = "10.0.40.1/24" }')).toEqual([
      'f.toml:11:37: route via "10.0.40.1/24" is not an IPv4 or IPv6 address (write the gateway\'s address alone, without a prefix length, such as "10.0.40.1")',
    ]);
  });

  it("refuses a route of a family the interface has no static address of", () => {
    expect(route('{ to = "::/0", via = "fd00::1" }')).toEqual([
      "f.toml:11:32: an IPv6 route on an interface with no static IPv6 address (add to its addresses an IPv6 address in the gateway's subnet: a gateway is reached through the interface's own subnet)",
    ]);
  });

  it("refuses a route without to or via", () => {
    expect(route('{ to = "0.0.0.0/0" }')).toEqual([
      "f.toml:11:11: missing key \"via\" in a route (add via, the gateway's address, inside one of this interface's subnets)",
    ]);
    expect(route('{ via = "10.0.40.1" }')).toEqual([
      'f.toml:11:11: missing key "to" in a route (add to: write the subnet it leads to, such as "10.1.0.0/16", or "0.0.0.0/0" for the default route)',
    ]);
  });

  it("refuses a second default route of a family on the machine", () => {
    expect(
      errors(`[[machines.interfaces]]
name = "eno1"
addresses = ["10.0.40.11/24"]
routes = [{ to = "0.0.0.0/0", via = "10.0.40.1" }]
[[machines.interfaces]]
name = "eno2"
addresses = ["10.0.41.11/24"]
routes = [{ to = "10.9.0.0/16", via = "10.0.41.1" }, { to = "0.0.0.0/0", via = "10.0.41.1" }]
`),
    ).toEqual([
      "f.toml:15:61: a second IPv4 default route (the first is on line 11, on eno1; a machine has one default route per family)",
    ]);
  });
});

describe("interfaces that carry nothing", () => {
  it("warns about an interface with no address, no DHCP and no VLAN on it", () => {
    expect(warnings(`${BOND}`)).toEqual([
      'f.toml:9:8: interface "bond0" carries nothing (it has no addresses, no dhcp and no VLAN on it: add addresses or dhcp = true, or remove it)',
    ]);
  });

  it("does not warn about a bond or port that carries a VLAN", () => {
    expect(
      warnings(`${BOND}[[machines.interfaces]]
name = "bond0.40"
vlan = { link = "bond0", id = 40 }
dhcp = true
[[machines.interfaces]]
name = "eno3"
mtu = 1500
[[machines.interfaces]]
name = "eno3.7"
vlan = { link = "eno3", id = 7 }
addresses = ["10.0.7.5/24"]
`),
    ).toEqual([]);
  });
});

describe("nameservers", () => {
  const DHCP = '[[machines.interfaces]]\nname = "eno1"\ndhcp = true\n';

  it("refuses what is not one address", () => {
    expect(errors(`nameservers = ["10.0.40.2/24"]\n${DHCP}`)).toEqual([
      'f.toml:8:16: nameserver "10.0.40.2/24" is not an IPv4 or IPv6 address (write the address alone, without a prefix length, such as "10.0.40.2")',
    ]);
    expect(errors(`nameservers = ["0.0.0.0"]\n${DHCP}`)).toEqual([
      'f.toml:8:16: nameserver "0.0.0.0" is the unspecified address (write the address of a DNS server on the machine\'s network)',
    ]);
  });

  it("refuses a nameserver listed twice, however it is written", () => {
    expect(errors(`nameservers = ["fd00::53", "fd00:0::53"]\n${DHCP}`)).toEqual([
      'f.toml:8:28: nameserver "fd00:0::53" is listed twice (list each nameserver once)',
    ]);
  });

  it("refuses more than three", () => {
    expect(
      errors(`nameservers = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]\n${DHCP}`),
    ).toEqual([
      "f.toml:8:52: 4 nameservers, more than 3 (resolv.conf reads the first 3 only: keep 3)",
    ]);
  });

  it("warns when no interface has an address or DHCP to reach them", () => {
    expect(warnings('nameservers = ["10.0.0.1"]\n')).toEqual([
      "f.toml:8:15: nameservers but no interface with an address or dhcp (declare an interface with addresses or dhcp = true: without one the machine reaches no nameserver)",
    ]);
  });
});
