import { expect, it } from "vitest";
import { devPort, devVarsForPort, missingDevVarLines } from "../../scripts/lib/dev-vars";

it("npm run dev adds to an existing .dev.vars the variables .dev.vars.example gained, and keeps the developer's values", () => {
  const current = 'PASSWORD_PEPPER = "mine"\n# a comment\n';
  const example = 'PASSWORD_PEPPER = "example"\n# Encrypts webhook secrets\nWEBHOOK_SECRETS_KEY = "abc="\nWEBHOOK_ALLOW_LOCALHOST = "true"\n';
  expect(missingDevVarLines(current, example)).toEqual(['WEBHOOK_SECRETS_KEY = "abc="', 'WEBHOOK_ALLOW_LOCALHOST = "true"']);
  expect(missingDevVarLines(example, example)).toEqual([]);
});

it("npm run dev on another port writes that port into the new .dev.vars's staff origins, and nothing else", () => {
  const example = 'STAFF_ALLOWED_ORIGINS = "http://localhost:8787,http://localhost:3000"\nPASSWORD_PEPPER = "localhost:8787-is-not-an-origin-here"\n';
  expect(devVarsForPort(example, 8799)).toBe(
    'STAFF_ALLOWED_ORIGINS = "http://localhost:8799,http://localhost:3000"\nPASSWORD_PEPPER = "localhost:8787-is-not-an-origin-here"\n',
  );
  expect(devVarsForPort(example, 8787)).toBe(example);
});

it("npm run dev serves on --port, else DEV_PORT, else 8787, and refuses an option it does not know", () => {
  expect(devPort([], {})).toBe(8787);
  expect(devPort([], { DEV_PORT: "8799" })).toBe(8799);
  expect(devPort(["--port", "8800"], { DEV_PORT: "8799" })).toBe(8800);
  expect(devPort(["--port=8801"], {})).toBe(8801);
  expect(() => devPort(["--prot", "8800"], {})).toThrow(/Unknown option '--prot'/);
  expect(() => devPort(["--port", "http"], {})).toThrow(/--port must be a TCP port number/);
});
