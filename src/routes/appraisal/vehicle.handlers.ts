import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import type { decodeVehicle as decodeVehicleRoute } from "./vehicle.routes";
import { decodeVehicle, toVehicleDecodeBody } from "./vehicle.service";

export const decodeVehicleHandler: RouteHandler<typeof decodeVehicleRoute, AppEnv> = async (c) =>
  c.json(toVehicleDecodeBody(await decodeVehicle(c.get("db"), c.req.valid("param").vin, "vin", new Date())), 200);
