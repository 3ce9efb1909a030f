import { type BenchArea, D1_READ_TARGET } from "../scenario";
import { brokerToken } from "./events";

/** A store-settings read with the broker token the events area seeds (key management's credential; unmetered). */
export const settingsArea: BenchArea = {
  name: "settings",
  scenarios: () => [
    { name: "settings_stores", path: "/api/settings/stores", headers: { Authorization: `Bearer ${brokerToken}` }, target: D1_READ_TARGET },
  ],
};
