import { expect, it } from "vitest";
import { missingDevVarLines } from "../scripts/lib/dev-vars";

it("npm run dev adds to an existing .dev.vars the variables .dev.vars.example gained, and keeps the developer's values", () => {
  const current = 'PASSWORD_PEPPER = "mine"\n# a comment\n';
  const example = 'PASSWORD_PEPPER = "example"\n# Encrypts webhook secrets\nWEBHOOK_SECRETS_KEY = "abc="\nWEBHOOK_ALLOW_LOCALHOST = "true"\n';
  expect(missingDevVarLines(current, example)).toEqual(['WEBHOOK_SECRETS_KEY = "abc="', 'WEBHOOK_ALLOW_LOCALHOST = "true"']);
  expect(missingDevVarLines(example, example)).toEqual([]);
});
