// Validates glTF files (.glb, or .gltf with external resources beside it) with the Khronos glTF
// validator, all in this one Node process, one after the other.
//
//   node gltf_validate.cjs VALIDATOR_DIR FILE...
//
// VALIDATOR_DIR is the installed npm package (scripts/setup puts it in
// .venv/validator/node_modules/gltf-validator). Prints one JSON line per file:
// {"file", "validatorVersion", "numErrors", "numWarnings", "numInfos", "numHints", "truncated",
//  "messages": [{"code", "severity", "message", "pointer"}], "resources": [...]}
// with every message (maxIssues 0: unlimited). A file the validator cannot even start on (not
// glTF at all) gets {"file", "failure"}. Exits 0 when every file was reported; the caller judges
// the reports.

"use strict";

const fs = require("fs");
const path = require("path");

const [validatorDir, ...files] = process.argv.slice(2);
if (!validatorDir || files.length === 0) {
    console.error("usage: node gltf_validate.cjs VALIDATOR_DIR FILE...");
    process.exit(2);
}
const validator = require(path.resolve(validatorDir));

async function validate(file) {
    const data = new Uint8Array(fs.readFileSync(file));
    try {
        const report = await validator.validateBytes(data, {
            uri: path.basename(file),
            maxIssues: 0,
            writeTimestamp: false,
            // Resources referenced by uri (the .bin of a .gltf) are read relative to the file; a
            // missing one is reported by the validator as an IO_ERROR.
            externalResourceFunction: (uri) =>
                fs.promises
                    .readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)))
                    .then((bytes) => new Uint8Array(bytes)),
        });
        const issues = report.issues;
        return {
            file,
            validatorVersion: report.validatorVersion,
            numErrors: issues.numErrors,
            numWarnings: issues.numWarnings,
            numInfos: issues.numInfos,
            numHints: issues.numHints,
            truncated: issues.truncated,
            messages: issues.messages.map(({ code, severity, message, pointer }) => ({
                code,
                severity,
                message,
                pointer,
            })),
            resources: (report.info && report.info.resources) || [],
        };
    } catch (failure) {
        return { file, failure: String(failure) };
    }
}

(async () => {
    for (const file of files) {
        process.stdout.write(JSON.stringify(await validate(file)) + "\n");
    }
})().catch((e) => {
    console.error(e && e.stack ? e.stack : String(e));
    process.exit(1);
});
