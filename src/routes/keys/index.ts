import { createRouter } from "../../http/router";
import * as handlers from "./keys.handlers";
import * as routes from "./keys.routes";

export const keysRouter = createRouter()
  .openapi(routes.createApiKey, handlers.createApiKey)
  .openapi(routes.listApiKeys, handlers.listApiKeys)
  .openapi(routes.revokeApiKey, handlers.revokeApiKey)
  .openapi(routes.rotateApiKey, handlers.rotateApiKey);
