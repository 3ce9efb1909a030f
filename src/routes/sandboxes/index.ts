import { createRouter } from "../../http/router";
import * as handlers from "./sandboxes.handlers";
import * as routes from "./sandboxes.routes";

export const sandboxesRouter = createRouter().openapi(routes.createSandbox, handlers.createSandbox);
