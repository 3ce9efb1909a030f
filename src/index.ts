import { createApp } from "./app";
import { createWorker } from "./worker";

export { OrganizationStore } from "./durable-objects/org-storage";
export { QuotaCounter } from "./durable-objects/quota-counter";

export default createWorker(createApp());
