import { createRouter } from "../../http/router";
import * as handlers from "./public.handlers";
import * as routes from "./public.routes";

export const publicRouter = createRouter()
  .openapi(routes.getPlatformStats, handlers.getPlatformStats)
  .openapi(routes.getPublicMarketFeed, handlers.getPublicMarketFeed);
