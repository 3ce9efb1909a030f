import { createRouter } from "../../http/router";
import * as handlers from "./settings.handlers";
import * as routes from "./settings.routes";

export const settingsRouter = createRouter()
  .openapi(routes.listStoreSettings, handlers.listStoreSettings)
  .openapi(routes.getStoreSettings, handlers.getStoreSettings)
  .openapi(routes.updateStoreSettings, handlers.updateStoreSettings)
  .openapi(routes.getLenderPanel, handlers.getLenderPanel)
  .openapi(routes.replaceLenderPanel, handlers.replaceLenderPanel)
  .openapi(routes.getComplianceSettings, handlers.getComplianceSettings)
  .openapi(routes.updateComplianceSettings, handlers.updateComplianceSettings)
  .openapi(routes.listSettingsAudit, handlers.listSettingsAudit);
