import { routedRequest } from "./edge/address";
import { app } from "./edge/app";
import type { Env } from "./env";
import { queue } from "./queues/consumer";

export { ControlObject } from "./control/object";
export { SpaceObject } from "./space/object";

export default {
  fetch(request, env, ctx) {
    return app.fetch(routedRequest(request, env), env, ctx);
  },
  queue,
} satisfies ExportedHandler<Env>;
