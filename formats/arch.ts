// Re-export while helpers move their imports to common/arch.ts; removed before the session ends.
export * from "../common/arch.ts";
