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
  },
});
