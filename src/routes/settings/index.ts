import { createRouter } from "../../http/router";
import * as handlers from "./settings.handlers";
import * as routes from "./settings.routes";

/** Each settings route with its handler: the organization's own, and the operator's copy of it. */
const SETTINGS = [
  [routes.listStoreSettings, handlers.listStoreSettings],
  [routes.getStoreSettings, handlers.getStoreSettings],
  [routes.updateStoreSettings, handlers.updateStoreSettings],
  [routes.getLenderPanel, handlers.getLenderPanel],
  [routes.replaceLenderPanel, handlers.replaceLenderPanel],
  [routes.getComplianceSettings, handlers.getComplianceSettings],
  [routes.updateComplianceSettings, handlers.updateComplianceSettings],
  [routes.listSettingsAudit, handlers.listSettingsAudit],
] as const;

export const settingsRouter = createRouter();
for (const [route, handler] of SETTINGS) {
  // The handlers read the organization from `orgManager`, which both credentials' middleware set;
  // the operator's copy only adds `org_id` to the path, so its handler is the same function.
  settingsRouter.openapi(route, handler as never);
  settingsRouter.openapi(routes.forOperator(route), handler as never);
}
