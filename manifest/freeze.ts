// The manifest is shared by the planner, the installer and the menu; freezing it at
// runtime makes an accidental edit fail where it happens instead of somewhere later.

export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
