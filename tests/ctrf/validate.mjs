// Validates CTRF documents with the reference implementation's
// validateStrict (npm ctrf, pinned in package.json): the files named on
// the command line, or standard input when none is. Prints one line per
// document and exits 1 when any is not strictly valid CTRF.
import { readFileSync } from "node:fs";
import { validateStrict } from "ctrf";

const files = process.argv.slice(2);
const inputs = files.length > 0 ? files : ["/dev/stdin"];
let failed = 0;
for (const file of inputs) {
  try {
    validateStrict(JSON.parse(readFileSync(file, "utf8")));
    console.log(`valid: ${file}`);
  } catch (e) {
    failed += 1;
    console.log(`INVALID: ${file}: ${e.message}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
