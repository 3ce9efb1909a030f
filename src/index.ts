import { createApp } from "./app";
import { createWorker } from "./worker";

export { QuotaCounter } from "./durable-objects/quota-counter";

export default createWorker(createApp());
