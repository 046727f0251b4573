// identity.json on the state partition: who the installed machine is, written once by the
// installer from the manifest, read by the boot agent at every boot (its reboot policy,
// the ports it waits for, the modules it loads with parameters). Readers tolerate a
// field that is absent or of the wrong type: an older install reads as the defaults.
import { jsonDocumentText, jsonObjectIn } from "./state-partition.ts";

export interface IdentityModule {
  readonly name: string;
  /** Space-separated `NAME=VALUE` words, as modprobe takes them. */
  readonly parameters: string;
}

export interface Identity {
  readonly cluster: string;
  readonly machine: string;
  readonly role: string;
  readonly installId: string;
  readonly installedRelease: string;
  readonly installedAt: string;
  readonly ports: readonly string[];
  readonly modules: readonly IdentityModule[];
  readonly rebootPolicy: "Automatic" | "Manual";
  readonly storage: readonly { readonly role: string; readonly label: string }[];
}

/**
 * The document as the disk holds it; null when there is none or it is not a JSON object.
 * Its fields are not checked: an older install wrote fewer, so a reader that uses one
 * checks it (parseBootIdentity), and a reader that shows it to people shows what is there.
 */
export function parseIdentity(text: string | null): Identity | null {
  return ((text !== null && jsonObjectIn(text)) || null) as Identity | null;
}

export function identityText(identity: Identity): string {
  return jsonDocumentText(identity);
}

/** What the boot agent needs of identity.json, with the defaults of an absent field. */
export interface BootIdentity {
  readonly installId: string | null;
  readonly rebootPolicy: "Automatic" | "Manual";
  readonly ports: readonly string[];
  readonly modules: readonly IdentityModule[];
}

export function parseBootIdentity(text: string | null): BootIdentity {
  // Read as unknown: an older install or a person may have written any field any way.
  const value: Partial<Record<keyof Identity, unknown>> = parseIdentity(text) ?? {};
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  const modules = Array.isArray(value.modules)
    ? value.modules.filter(
        (m): m is IdentityModule =>
          !!m &&
          typeof m === "object" &&
          typeof (m as IdentityModule).name === "string" &&
          typeof (m as IdentityModule).parameters === "string",
      )
    : [];
  return {
    installId: typeof value.installId === "string" ? value.installId : null,
    rebootPolicy: value.rebootPolicy === "Automatic" ? "Automatic" : "Manual",
    ports: strings(value.ports),
    modules: modules.map((m) => ({ name: m.name, parameters: m.parameters })),
  };
}
