import { createRouter } from "../../http/router";
import * as handlers from "./compliance.handlers";
import * as routes from "./compliance.routes";

export const complianceRouter = createRouter()
  .openapi(routes.createComplianceCheck, handlers.createComplianceCheck)
  .openapi(routes.getComplianceCheck, handlers.getComplianceCheck);
