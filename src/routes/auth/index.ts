import { createRouter } from "../../http/router";
import * as handlers from "./auth.handlers";
import * as routes from "./auth.routes";

export const authRouter = createRouter().openapi(routes.logIn, handlers.logIn).openapi(routes.logOut, handlers.logOut);
