// Run inside a test's network namespace as the machine (`ip netns exec NS node --import tsx
// test/netns/apply-network.ts DECLARATION_JSON`): applies the declared network as the boot
// agent does, then prints one JSON line: the console's lines, status.network, NetworkReady
// and each step's outcome.
import { networkReadyCondition } from "../../agent/network-ready.ts";
import type { NetworkDeclaration } from "../../common/network-declaration.ts";
import { bringUpNetwork } from "../../hardware/network/bring-up.ts";
import { networkStatus } from "../../hardware/network/observe.ts";

const declaration = JSON.parse(process.argv[2] ?? "") as NetworkDeclaration;
const up = await bringUpNetwork(declaration);
process.stdout.write(
  `${JSON.stringify({
    lines: up.lines,
    status: networkStatus(up.network),
    condition: networkReadyCondition(up.plan, up.applied, up.network),
    outcomes: up.applied.outcomes.map((o) => ({
      op: o.step.op,
      result: o.result,
      message: o.message,
    })),
  })}\n`,
);
