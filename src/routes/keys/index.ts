import { createRouter } from "../../http/router";
import * as handlers from "./keys.handlers";
import * as routes from "./keys.routes";

export const keysRouter = createRouter()
  .openapi(routes.createKey, handlers.create)
  .openapi(routes.listKeys, handlers.list)
  .openapi(routes.revokeKey, handlers.revoke);
