// `liken-stick keys --out DIR`: the cluster's Secure Boot keys.
import { usageError } from "../../common/errors.ts";
import { requireOutFolder } from "../out-folder.ts";
import type { Verb } from "../verb.ts";

export const keysVerb: Verb = {
  words: ["keys"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "make the cluster's Secure Boot keys",
  description: `
Makes a new set of Secure Boot keys in DIR (a new folder, or an empty one): for
PK, KEK and db an RSA 2048 key (NAME.key, keep it secret), its certificate
(NAME.crt, and NAME.cer in DER for firmware setup screens), its EFI signature
list (NAME.esl) and its signed update (NAME.auth: PK and KEK signed by PK, db by
KEK), and owner.guid. Never replaces keys: a folder that holds anything is
refused.

liken-stick image --sign DIR and release --sign DIR sign with db; the stick
enrolls PK, KEK and db in a machine whose firmware is in setup mode. Only
certificates and signed updates travel on a stick; the .key files stay in DIR.`,
  options: [
    { name: "out", type: "string", value: "DIR", summary: "where to write the keys (required)" },
  ],
  async run(args, io) {
    const { out } = args.options;
    if (typeof out !== "string")
      throw usageError("missing --out DIR", "see liken-stick keys --help");
    await requireOutFolder(out, "keys");
    const { createKeys } = await import("../../image-build/secure-boot/keys.ts");
    const keys = await createKeys(out, new Date());
    io.out(
      `Made the Secure Boot keys in ${out} (owner ${keys.owner}). Keep the .key files secret.\n`,
    );
    return 0;
  },
};
