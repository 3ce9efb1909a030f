/**
 * The floors an endpoint is compared with (issue 19): the metered chain and then a 1 KiB JSON
 * body parsed, validated and answered (`metered_echo`, the floor of the POST engines), or one D1
 * INSERT of an audit-sized row (`metered_write`, the floor of compliance, which records before it
 * answers; `metered_event` adds an event raised with it, what a compliance hold does besides), or one indexed D1 SELECT of one row (`metered_read`, the floor of a GET that reads D1 on
 * every call), or of a page of 100 units (`metered_page`, the floor of a feed page). `metered_echo_photos` sends the echo the photo appraisal's body, so the cost of a MiB
 * of body can be compared (scripts/bench/run.ts). Routes: scripts/bench/entry.ts.
 */
import { METERED_ECHO_PATH, METERED_EVENT_PATH, METERED_PAGE_PATH, METERED_READ_PATH, METERED_WRITE_PATH } from "../floor-paths";
import type { BenchArea } from "../scenario";
import { APPRAISAL_PHOTOS } from "./appraisal";

const buyer = {
  first_name: "Emily",
  last_name: "Carter",
  email: "emily.carter@example.com",
  phone: "512-555-0147",
  address: "4821 Shoal Creek Blvd, Austin TX",
  zip: "78756",
};

/** 1 KiB as JSON (checked below): a deal as a desk tool sends it. */
const ECHO_BODY = {
  deal_id: "deal_2026_11_0457",
  store_id: "sto_bench",
  buyer,
  co_buyer: { ...buyer, first_name: "Jordan", email: "jordan.carter@example.com" },
  vehicle: { vin: "4T1G11AK5NU012345", year: 2022, make: "Toyota", model: "Camry", trim: "SE", mileage: 31_250 },
  beacon: 684,
  vehicle_price: 24_995,
  down_payment: 3_000,
  trade_value: 9_500,
  trade_payoff: 7_250,
  term_months: 72,
  products: [
    { name: "Vehicle service contract", price: 2_495, cost: 1_100 },
    { name: "GAP", price: 895, cost: 250 },
  ],
  notes:
    "Customer wants a payment under 450, prefers the credit union; trade has new tires and one key. Co-buyer is self-employed: " +
    "two years of returns and a CPA letter promised by Friday morning. Call back after 5pm on the cell; do not text before 9am.",
};

const echoBytes = JSON.stringify(ECHO_BODY).length;
if (echoBytes < 960 || echoBytes > 1100) throw new Error(`the echo body is ${echoBytes} bytes, not about 1 KiB`);

export const baselinesArea: BenchArea = {
  name: "baselines",
  scenarios: ({ key, storeId }) => {
    const headers = { "X-Service-API-Key": key };
    return [
      { name: "metered_echo", path: METERED_ECHO_PATH, method: "POST", headers, metered: true, body: ECHO_BODY },
      { name: "metered_write", path: METERED_WRITE_PATH, method: "POST", headers, metered: true },
      { name: "metered_event", path: METERED_EVENT_PATH, method: "POST", headers, metered: true },
      { name: "metered_read", path: METERED_READ_PATH, headers, metered: true },
      { name: "metered_page", path: `${METERED_PAGE_PATH}?store_id=${storeId}`, headers, metered: true },
      {
        name: "metered_echo_photos",
        path: METERED_ECHO_PATH,
        method: "POST",
        headers,
        metered: true,
        body: { ...ECHO_BODY, photos: APPRAISAL_PHOTOS },
      },
    ];
  },
};
