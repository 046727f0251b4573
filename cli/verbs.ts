// Every verb of `liken-stick`, in the order help lists them. A verb appears here when it
// works; none is a stub. The developer's `vm` is not one of them: it lives with the QEMU
// machine in testing/ (npm run vm).
import type { Verb } from "./verb.ts";
import { disks } from "./verbs/disks.ts";
import { enrollVerb } from "./verbs/enroll.ts";
import { hwreportVerb } from "./verbs/hwreport.ts";
import { imageVerb } from "./verbs/image.ts";
import { inspectVerb } from "./verbs/inspect.ts";
import { installVerb } from "./verbs/install.ts";
import { keysVerb } from "./verbs/keys.ts";
import { manifestCheck } from "./verbs/manifest-check.ts";
import { menuVerb } from "./verbs/menu.ts";
import { netbootVerb } from "./verbs/netboot.ts";
import { plan } from "./verbs/plan.ts";
import { releaseVerb } from "./verbs/release.ts";
import { repairVerb } from "./verbs/repair.ts";
import { unattendedVerb } from "./verbs/unattended.ts";

export const VERBS: readonly Verb[] = [
  manifestCheck,
  disks,
  plan,
  installVerb,
  unattendedVerb,
  enrollVerb,
  repairVerb,
  menuVerb,
  inspectVerb,
  hwreportVerb,
  releaseVerb,
  imageVerb,
  netbootVerb,
  keysVerb,
];
