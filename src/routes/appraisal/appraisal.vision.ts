import type { VisionFinding } from "../../engines/appraisal/types";

/** Looks at one trade photo and names the recon items its visible damage needs. */
export interface VisionAnalyzer {
  readonly model: string;
  findDamage(photo: string, items: readonly { itemKey: string; label: string }[], signal: AbortSignal): Promise<VisionFinding[]>;
}

const MAX_COUNT_PER_PHOTO = 20;

function prompt(items: readonly { itemKey: string; label: string }[]) {
  return [
    "You inspect a photo of a used car a dealer is appraising as a trade-in.",
    "List only damage clearly visible in the photo that needs reconditioning, using these item keys:",
    ...items.map((item) => `- ${item.itemKey}: ${item.label}`),
    'Answer with JSON only, in the form {"damage":[{"item":"door_ding_repair","count":2}]}; {"damage":[]} when nothing is visible.',
  ].join("\n");
}

const DAMAGE_SCHEMA = {
  type: "object",
  properties: {
    damage: {
      type: "array",
      items: { type: "object", properties: { item: { type: "string" }, count: { type: "integer" } }, required: ["item", "count"] },
    },
  },
  required: ["damage"],
};

/** The model's answer as findings; anything that is not the asked-for JSON is an error (the photos then count as not analysed). */
function parseDamage(response: unknown, itemKeys: ReadonlySet<string>): VisionFinding[] {
  let answer = response;
  if (typeof answer === "string") {
    const json = answer.slice(answer.indexOf("{"), answer.lastIndexOf("}") + 1);
    answer = JSON.parse(json);
  }
  const damage = (answer as { damage?: unknown })?.damage;
  if (!Array.isArray(damage)) throw new Error("The vision model's answer has no damage list");
  return damage.flatMap((entry: { item?: unknown; count?: unknown }) => {
    const count = Math.min(MAX_COUNT_PER_PHOTO, Math.round(Number(entry?.count ?? 1)));
    return typeof entry?.item === "string" && itemKeys.has(entry.item) && count >= 1 ? [{ itemKey: entry.item, count }] : [];
  });
}

/** Workers AI, through the `AI` binding (docs/appraisal.md says how to add it). */
function workersAiVision(ai: Ai, model: string): VisionAnalyzer {
  return {
    model,
    async findDamage(photo, items, signal) {
      const result = await ai.run(
        model as keyof AiModels,
        {
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: prompt(items) },
                { type: "image_url", image_url: { url: photo } },
              ],
            },
          ],
          response_format: { type: "json_schema", json_schema: DAMAGE_SCHEMA },
          max_tokens: 256,
          temperature: 0,
        } as never,
        { signal },
      );
      return parseDamage((result as { response?: unknown }).response, new Set(items.map((item) => item.itemKey)));
    },
  };
}

/** The vision model when the Worker has an `AI` binding; otherwise none (photos are then checked, not analysed). */
export function visionAnalyzerFrom(env: Env, model: string): VisionAnalyzer | null {
  const ai = (env as Env & { AI?: Ai }).AI;
  return ai ? workersAiVision(ai, model) : null;
}
