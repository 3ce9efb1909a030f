// npm itself runs on the machine's Node; every npm script runs on the project's own Node 24 (the
// node@24 devDependency puts it first on the scripts' PATH). On an older system Node, npm warns
// EBADENGINE about that requirement during install: one line says why that is harmless.
import { execFileSync } from "node:child_process";

const npmNode = process.env.npm_node_execpath;
const npmNodeVersion = npmNode ? execFileSync(npmNode, ["--version"], { encoding: "utf8" }).trim() : process.version;
if (Number(npmNodeVersion.slice(1).split(".")[0]) < 24) {
  console.log(
    `npm ran on Node ${npmNodeVersion}, so it warned EBADENGINE above; harmless: every npm script (dev, test, the tools) runs on the project's own Node ${process.version}.`,
  );
}
