import type { BenchArea } from "../scenario";
import { appraisalBench } from "./appraisal";
import { baselinesArea } from "./baselines";
import { complianceBench } from "./compliance";
import { dealDeskArea } from "./deal-desk";
import { eventsArea } from "./events";
import { feedsArea } from "./feeds";
import { publicArea } from "./public";
import { reportsBench } from "./reports";
import { settingsArea } from "./settings";

/** Every endpoint area's scenarios; an area adds its module here. */
export const BENCH_AREAS: readonly BenchArea[] = [
  baselinesArea,
  publicArea,
  dealDeskArea,
  appraisalBench,
  complianceBench,
  reportsBench,
  eventsArea,
  feedsArea,
  settingsArea,
];
