import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
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
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts", "clients/typescript/test/**/*.test.ts"],
    testTimeout: 30_000,
    // One runtime per vitest worker for all its files, not one per file: each file used to start
    // workerd and import the Worker again (200 of 480 s). Files never share a space (every test
    // makes its own, `uniqueName`), and the setup file clears the objects a file leaves behind.
    isolate: false,
    setupFiles: ["test/setup/reset-between-files.ts"],
  },
});
