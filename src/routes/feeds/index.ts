import { createRouter } from "../../http/router";
import * as handlers from "./feeds.handlers";
import * as routes from "./feeds.routes";

export const feedsRouter = createRouter()
  .openapi(routes.listInventory, handlers.listInventory)
  .openapi(routes.getSalesSummary, handlers.getSalesSummary);
