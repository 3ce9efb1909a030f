import type { BenchArea } from "../scenario";
import { appraisalBench } from "./appraisal";

/** Every endpoint area's scenarios; an area adds its module here. */
export const BENCH_AREAS: readonly BenchArea[] = [appraisalBench];
