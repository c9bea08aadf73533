#!/usr/bin/env node
// The registry these machines reach serves only the current platform's builds of some native
// packages (biome's CLI, workerd), so `npm install` leaves the other platforms' optional
// packages out of package-lock.json, and `npm ci` then refuses the lock as out of sync. This
// adds the missing entries, marked optional with their os/cpu/libc, exactly as a lock written
// against the full registry has them: `npm ci` skips them on every other platform without
// fetching anything. Run it after any `npm install` that rewrites the lock.
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORMS = [
  [/-android-arm64$/, { os: ["android"], cpu: ["arm64"] }],
  [/-android-x64$/, { os: ["android"], cpu: ["x64"] }],
  [/-darwin-(arm64)$/, { os: ["darwin"], cpu: ["arm64"] }],
  [/-darwin-(x64|64)$/, { os: ["darwin"], cpu: ["x64"] }],
  [/-linux-arm64-musl$/, { os: ["linux"], cpu: ["arm64"], libc: ["musl"] }],
  [/-linux-x64-musl$/, { os: ["linux"], cpu: ["x64"], libc: ["musl"] }],
  [/-win32-arm64$/, { os: ["win32"], cpu: ["arm64"] }],
  [/-(win32-x64|windows-64)$/, { os: ["win32"], cpu: ["x64"] }],
];

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    if (lock.packages[target] || !path.startsWith("node_modules/")) continue;
    const platform = PLATFORMS.find(([pattern]) => pattern.test(name))?.[1];
    if (!platform) throw new Error(`no platform known for ${name}; add it to PLATFORMS`);
    lock.packages[target] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added to the lock: ${added.join(", ")}` : "the lock was complete");
