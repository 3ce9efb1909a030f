import { createRouter } from "../../http/router";
import * as handlers from "./reports.handlers";
import * as routes from "./reports.routes";

export const reportsRouter = createRouter()
  .openapi(routes.getInventoryAlerts, handlers.getInventoryAlerts)
  .openapi(routes.createMorningBriefing, handlers.createMorningBriefing)
  .openapi(routes.getMarketPulse, handlers.getMarketPulse);
