import { createRouter } from "../../http/router";
import * as handlers from "./ingest.handlers";
import * as routes from "./ingest.routes";

export const ingestRouter = createRouter()
  .openapi(routes.ingestInventory, handlers.ingestInventory)
  .openapi(routes.ingestDeals, handlers.ingestDeals);
