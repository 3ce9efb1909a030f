import { version } from "../package.json";

/** The service's release (package.json), sent on every response as `X-Service-Version`. */
export const SERVICE_VERSION: string = version;
