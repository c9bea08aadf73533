import { reset } from "cloudflare:test";
import { afterAll } from "vitest";

// Test files share one runtime (`isolate: false`), so a file's spaces would live on into the
// next with their timers (compiles, folds, suggestion jobs) running on the same thread: that
// made later files twice as slow. Each file's objects and storage go when it ends.
afterAll(async () => {
  await reset();
});
