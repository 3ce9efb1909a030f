import { createRouter } from "../../http/router";
import * as handlers from "./operator.handlers";
import * as routes from "./operator.routes";

export const operatorRouter = createRouter()
  .openapi(routes.createOrganization, handlers.createOrganization)
  .openapi(routes.listOrganizations, handlers.listOrganizations)
  .openapi(routes.getOrganization, handlers.getOrganization)
  .openapi(routes.suspendOrganization, handlers.suspendOrganization)
  .openapi(routes.reinstateOrganization, handlers.reinstateOrganization)
  .openapi(routes.createStore, handlers.createStore)
  .openapi(routes.listStores, handlers.listStores)
  .openapi(routes.createStaffUser, handlers.createStaffUser)
  .openapi(routes.createBrokerToken, handlers.createBrokerToken)
  .openapi(routes.listBrokerTokens, handlers.listBrokerTokens)
  .openapi(routes.revokeBrokerToken, handlers.revokeBrokerToken);
