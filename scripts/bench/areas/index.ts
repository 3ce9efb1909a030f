import type { BenchArea } from "../scenario";
import { eventsArea } from "./events";

/** Every endpoint area's scenarios; an area adds its module here. */
export const BENCH_AREAS: readonly BenchArea[] = [eventsArea];
