import { createRouter } from "../../http/router";
import * as handlers from "./feeds.handlers";
import * as routes from "./feeds.routes";

export const feedsRouter = createRouter()
  .openapi(routes.getInventory, handlers.inventory)
  .openapi(routes.getSalesSummary, handlers.sales);
