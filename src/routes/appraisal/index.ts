import { createRouter } from "../../http/router";
import * as handlers from "./appraisal.handlers";
import * as routes from "./appraisal.routes";
import { decodeVehicleHandler } from "./vehicle.handlers";
import { decodeVehicle } from "./vehicle.routes";

export const appraisalRouter = createRouter().openapi(routes.appraiseTrade, handlers.appraiseTrade).openapi(decodeVehicle, decodeVehicleHandler);
