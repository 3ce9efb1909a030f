import { createRouter } from "../../http/router";
import * as handlers from "./demo-data.handlers";
import * as routes from "./demo-data.routes";

export const demoDataRouter = createRouter().openapi(routes.openDemoData, handlers.openDemoData);
