import type { BenchArea } from "../scenario";
import { dealDeskArea } from "./deal-desk";

/** Every endpoint area's scenarios; an area adds its module here. */
export const BENCH_AREAS: readonly BenchArea[] = [dealDeskArea];
