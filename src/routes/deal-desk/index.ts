import { createRouter } from "../../http/router";
import * as handlers from "./deal-desk.handlers";
import * as routes from "./deal-desk.routes";

export const dealDeskRouter = createRouter()
  .openapi(routes.routeLender, handlers.routeLender)
  .openapi(routes.checkStips, handlers.checkStips)
  .openapi(routes.calculateGross, handlers.calculateGross)
  .openapi(routes.coachDeal, handlers.coachDeal);
