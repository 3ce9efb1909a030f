import type { BenchArea } from "../scenario";
import { complianceBench } from "./compliance";

/** Every endpoint area's scenarios; an area adds its module here. */
export const BENCH_AREAS: readonly BenchArea[] = [complianceBench];
