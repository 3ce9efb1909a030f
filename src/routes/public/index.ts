import { createRouter } from "../../http/router";
import * as handlers from "./public.handlers";
import * as routes from "./public.routes";

export const publicRouter = createRouter().openapi(routes.getStats, handlers.stats).openapi(routes.getMarketFeed, handlers.marketFeed);
