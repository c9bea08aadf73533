import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { packageImports } from "./test/setup/package-imports.mjs";
import { PropertiesFirst } from "./test/setup/properties-first";

// This file runs in Node; the project's types are the Workers runtime's, which have no `process`.
declare const process: { env: Record<string, string | undefined> };

/** `npm run test:deep` runs every property longer (test/support/property-runs.ts). */
const propertyScale = Number(process.env.TEST_PROPERTY_SCALE ?? 1);

export default defineConfig({
  // In the checkout, not in node_modules: git worktrees that link one node_modules would otherwise
  // share the optimizer's bundles and replace each other's in the middle of a run.
  cacheDir: ".vite",
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          KEY_PEPPER: "test-pepper",
          JWT_SECRET: "test-jwt-secret",
          OPERATOR_TOKEN: "test-operator-token",
          UPLOAD_SECRET: "test-upload-secret",
        },
        // Import tests deliver the `imports` queue's messages to the consumer themselves, at the
        // moment each test chooses (test/support/imports.ts `deliver`): the queue's own delivery
        // comes a minute after a message at the earliest, when a test has ended.
        queueConsumers: {
          imports: { maxBatchSize: 100, maxBatchTimeout: 60, maxRetries: 10 },
          deliveries: { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 10 },
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts", "clients/typescript/test/**/*.test.ts"],
    // A property of a few hundred requests takes 15-20 s alone; the margin is for a busy machine.
    testTimeout: 90_000 * propertyScale,
    // A hook that reads the served document or seeds a space waits on the same busy runtime.
    hookTimeout: 60_000,
    provide: { propertyScale },
    // One runtime per vitest worker for all its files, not one per file: each file used to start
    // workerd and import the Worker again (200 of 480 s). Files never share a space (every test
    // makes its own, `uniqueName`), and the setup file clears the objects a file leaves behind.
    isolate: false,
    // Vitest leaves a core to itself by default (one worker on two cores); its main process takes
    // about a quarter of the CPU here, each worker's workerd the rest, so both cores take files.
    maxWorkers: 2,
    setupFiles: ["test/setup/reset-between-files.ts"],
    sequence: { sequencer: PropertiesFirst },
    // Each package as one module, bundled before the run (in node_modules/.vite): as files, the
    // Worker's packages were 480 of the 650 modules each worker imports one by one at its start.
    deps: { optimizer: { ssr: { enabled: true, include: packageImports() } } },
  },
});
