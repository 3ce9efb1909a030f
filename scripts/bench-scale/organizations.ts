/**
 * Synthetic organizations for the scale benchmark, the demo stores as templates under new ids,
 * keys and store ids, so every row is new and the data is a function of the organization's number alone.
 */
import { hashPassword } from "../../src/credentials/password";
import { DEMO_ORGANIZATIONS, type DemoOrganization } from "../../src/demo/demo-data";

/**
 * How many organizations of each size each level adds (stores = sum of size × count), as the US
 * market looks: most dealers have one to three rooftops, some groups ten, a few fifty or more.
 * Each level adds to the one before: 10 → 100 → 1,000 → 10,000 stores.
 */
export const LEVELS: readonly { stores: number; adds: readonly [size: number, count: number][] }[] = [
  {
    stores: 10,
    adds: [
      [5, 1],
      [2, 1],
      [1, 3],
    ],
  },
  {
    stores: 100,
    adds: [
      [50, 1],
      [10, 1],
      [3, 2],
      [2, 4],
      [1, 16],
    ],
  },
  {
    stores: 1000,
    adds: [
      [10, 20],
      [5, 20],
      [3, 50],
      [2, 100],
      [1, 250],
    ],
  },
  // The same mix, ten times over.
  {
    stores: 10_000,
    adds: [
      [50, 4],
      [10, 180],
      [5, 200],
      [3, 500],
      [2, 1000],
      [1, 2500],
    ],
  },
];

const TEMPLATE_STORES = DEMO_ORGANIZATIONS.flatMap((org) => org.stores);

/** Organization number `n` with `size` stores, each a copy of a demo store under new ids. */
export function syntheticOrganization(n: number, size: number): DemoOrganization {
  const key = `scale${String(n).padStart(4, "0")}`;
  return {
    key,
    id: `org_${key}`,
    name: `Scale Dealer ${n}`,
    staffUser: { id: `usr_${key}`, name: "Scale Desk" },
    stores: Array.from({ length: size }, (_, i) => ({
      ...TEMPLATE_STORES[(n + i) % TEMPLATE_STORES.length],
      id: `sto_${key}_${i + 1}`,
      name: `Scale ${n} Store ${i + 1}`,
      primary: i === 0,
      // Unique within the organization: the prefix of its stock and deal numbers.
      code: `S${i + 1}`,
    })),
  };
}

/** One scrypt hash for every synthetic staff user: nobody logs in, and hashing 500 would take minutes. */
export const staffPasswordHash = () => hashPassword("scale-bench-password-not-a-secret", "local-dev-pepper-not-a-secret");
