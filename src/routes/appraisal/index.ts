import { createRouter } from "../../http/router";
import * as handlers from "./appraisal.handlers";
import * as routes from "./appraisal.routes";

export const appraisalRouter = createRouter().openapi(routes.appraiseTrade, handlers.appraiseTrade);
